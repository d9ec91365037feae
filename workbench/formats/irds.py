"""ir_datasets as a source (the optional extra `[datasets]`): a dataset's qrels, queries
(every field, `default_text()` as the text), relevance scale (`qrels_defs()`) and
documents, as plain records and arrays.

Names: `irds:ID` on the command line (as ir_measures spells it); `ID` here. ir_datasets is
imported on first use only. Every failure is one line naming `irds:ID`: ir_datasets
missing, an unknown id, a dataset without qrels / queries / documents, or one whose files
are not on this machine (ir_datasets downloads them on first use into IR_DATASETS_HOME;
offline, that fails, and the message says where they are expected).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from workbench.errors import InputError, UsageError

__all__ = ["PREFIX", "DatasetQuery", "DatasetDoc", "dataset", "dataset_id", "docs", "home",
           "qrels", "qrels_defs", "queries"]

PREFIX = "irds:"


@dataclass(frozen=True)
class DatasetQuery:
    query_id: str
    text: str  # default_text()
    fields: dict  # every field but query_id, as text


@dataclass(frozen=True)
class DatasetDoc:
    doc_id: str
    text: str  # default_text()
    fields: dict


def dataset_id(name: str) -> str | None:
    """The id of an `irds:ID` name, else None."""
    return name[len(PREFIX):] if name.startswith(PREFIX) else None


def home() -> str:
    """Where ir_datasets keeps its files (IR_DATASETS_HOME, default ~/.ir_datasets)."""
    return os.environ.get("IR_DATASETS_HOME") or os.path.expanduser("~/.ir_datasets")


def _where(ds_id: str) -> str:
    return f"{PREFIX}{ds_id}"


def dataset(ds_id: str):
    """The ir_datasets dataset `ds_id`; UsageError when ir_datasets is missing or the id
    is unknown."""
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(f"{_where(ds_id)}: reading datasets needs ir_datasets "
                         f"(pip install 'workbench[datasets]')") from None
    try:
        return ir_datasets.load(ds_id)
    except KeyError:
        raise UsageError(f"{_where(ds_id)}: no such ir_datasets dataset "
                         f"(`ir_datasets list` shows the ids)") from None


def _offline(ds_id: str, what: str, exc: BaseException) -> InputError:
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return InputError(_where(ds_id), None,
                      f"cannot read the dataset's {what} ({detail}): ir_datasets downloads "
                      f"them on first use into IR_DATASETS_HOME ({home()}); fetch them once "
                      f"where there is network (`ir_datasets export {ds_id} {what}`) or "
                      f"point IR_DATASETS_HOME at a copy")


def _needs(ds, ds_id: str, what: str) -> None:
    if not getattr(ds, f"has_{what}")():
        raise UsageError(f"{_where(ds_id)}: the dataset has no {what}")


def _text(value) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


@dataclass(frozen=True)
class DatasetQrels:
    """A dataset's qrels as `formats.trec.Qrels` gives a file's (qid, docno, rel arrays)."""

    qid: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    path: str = ""
    line: None = None

    def __len__(self) -> int:
        return len(self.rel)


def _ids(values: list) -> np.ndarray:
    try:
        return np.array(values, dtype="S") if values else np.empty(0, dtype="S1")
    except UnicodeEncodeError:
        return np.array([v.encode("utf-8") for v in values], dtype="S")


def qrels(ds_id: str, ds=None) -> DatasetQrels:
    """Every qrel of the dataset, in its order (grades as ints, negative ones kept)."""
    ds = ds or dataset(ds_id)
    _needs(ds, ds_id, "qrels")
    qids, docs, rels = [], [], []
    try:
        for q in ds.qrels_iter():
            qids.append(_text(q.query_id))
            docs.append(_text(q.doc_id))
            rels.append(int(q.relevance))
    except (OSError, RuntimeError, ConnectionError) as exc:
        raise _offline(ds_id, "qrels", exc) from None
    return DatasetQrels(_ids(qids), _ids(docs), np.asarray(rels, dtype=np.int64),
                        _where(ds_id))


def qrels_defs(ds) -> dict[int, str]:
    """The dataset's relevance levels: grade -> description ({} when it gives none)."""
    try:
        return {int(k): _text(v) for k, v in (ds.qrels_defs() or {}).items()}
    except (AttributeError, NotImplementedError):
        return {}


def _fields(record, skip: str) -> dict:
    return {f: _text(getattr(record, f)) for f in record._fields if f != skip}


def _default_text(record, skip: str) -> str:
    if hasattr(record, "default_text"):
        return _text(record.default_text())
    fields = _fields(record, skip)
    return next((v for v in fields.values() if v), "")


def queries(ds_id: str, ds=None) -> list[DatasetQuery]:
    ds = ds or dataset(ds_id)
    _needs(ds, ds_id, "queries")
    try:
        return [DatasetQuery(_text(q.query_id), _default_text(q, "query_id"),
                             _fields(q, "query_id")) for q in ds.queries_iter()]
    except (OSError, RuntimeError, ConnectionError) as exc:
        raise _offline(ds_id, "queries", exc) from None


def docs(ds_id: str, ids: Iterable[str] | None, ds=None) -> Iterator[DatasetDoc]:
    """The documents `ids` (from the docstore, in the order given; a missing one is
    skipped), or every document (ids None)."""
    ds = ds or dataset(ds_id)
    _needs(ds, ds_id, "docs")
    try:
        if ids is None:
            source = ds.docs_iter()
        else:
            store = ds.docs_store()
            source = store.get_many_iter(list(ids))
        for d in source:
            yield DatasetDoc(_text(d.doc_id), _default_text(d, "doc_id"), _fields(d, "doc_id"))
    except (OSError, RuntimeError, ConnectionError) as exc:
        raise _offline(ds_id, "docs", exc) from None
