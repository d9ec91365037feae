"""CJK text in the plain tables: widths were counted in characters, so a
title of wide characters pushed its row's later columns out of line."""

from __future__ import annotations

import json

from rich.cells import cell_len

from tests.cli.helpers import cli_ok


def _field_ends(line: str) -> list[int]:
    """The terminal cell offset where each whitespace-separated field of `line` ends."""
    ends, width, inside = [], 0, False
    for ch in line:
        width += cell_len(ch)
        if ch != " ":
            if inside:
                ends[-1] = width
            else:
                ends.append(width)
            inside = True
        else:
            inside = False
    return ends


def test_list_queries_aligns_columns_after_a_cjk_title(db_url, tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text("".join(json.dumps({"id": qid, "title": title}, ensure_ascii=False) + "\n"
                         for qid, title in (("q1", "相关性评估"), ("q2", "plaintitle"))))
    cli_ok(db_url, "import", "queries", str(q))
    lines = cli_ok(db_url, "list", "queries").splitlines()
    assert len(lines) == 3 and "相关性评估" in lines[1]
    # the pool column (the third field, right-aligned) ends at the same cell on every line
    assert len({_field_ends(line)[2] for line in lines}) == 1, lines
