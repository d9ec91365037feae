"""Query, system and assessor ids by external name for the answers domain's writes: made
when missing (stub queries, new systems, assessors), as `import run` and `import qrels` do."""

from __future__ import annotations

import numpy as np

from workbench.errors import InputError
from workbench.names import id_problem
from workbench.store.ext_ids import create_stubs, known_ids
from workbench.store.runs import create_system, system_id_of


def query_ids(session, names: list[str]) -> tuple[dict[str, int], int]:
    """name -> query id for every name (stubs made for the unknown ones), and how many
    stubs were made."""
    distinct = sorted(set(names))
    if not distinct:
        return {}, 0
    arr = np.array([n.encode("utf-8") for n in distinct], dtype="S")
    ids = np.asarray(known_ids(session, "query", arr), dtype=np.int64)
    missing = ids < 0
    if missing.any():
        ids[missing] = create_stubs(session, "query", arr[missing])
    return dict(zip(distinct, ids.tolist())), int(missing.sum())


def system_ids(session, tags: list[str]) -> dict[str, int]:
    out = {}
    for tag in dict.fromkeys(tags):
        sid = system_id_of(session, tag)
        out[tag] = sid if sid is not None else create_system(session, tag)
    return out


def checked_id(path: str, line: int, value: str, what: str) -> str:
    problem = id_problem(value, what)
    if problem is not None:
        raise InputError(path, line, problem)
    return value
