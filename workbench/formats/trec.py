"""TREC qrels and run files: vectorised readers and plain writers.

Formats (docs/architecture.md#measure-semantics):

- qrels: ``qid iter docno rel`` — ``iter`` ignored, ``rel`` an integer (negative = in the
  pool but unjudged), ``#`` lines are comments;
- run: ``qid iter docno rank score tag`` — ``rank`` ignored by evaluation (kept only on
  request, for ``--ties rank``), ``score`` a finite number; columns after the tag are
  ignored, as trec_eval ignores them (a qrels line must have exactly 4, as there).

Both: spaces, tabs (any ASCII whitespace but a vertical tab or form feed) between columns,
lines ended by \\n, \\r\\n or a lone \\r (the rule of ``formats.textlines``), blank lines
skipped, a UTF-8 byte order mark accepted, ``#`` comment lines skipped. The same docno
twice for one query is an error (trec_eval refuses it too). A run file may carry several
tags: the first one is the run's tag (a mixed file is almost always a concatenation and the
first tag names it as well as any); all distinct tags are listed in ``Run.tags``, and the
last line's tag, which trec_eval prints as ``runid``, in ``Run.last_tag``.

Why vectorised: a run of 1 000 queries × 1 000 documents is a million lines; the file is
read in chunks of whole lines and each chunk is tokenised with numpy byte operations
(``formats.columns``), so no Python object is created per line (a 1 GB file never becomes
1 GB of Python objects). Every problem is reported as ``InputError(path, line, reason)``.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field

import numpy as np

from workbench.errors import InputError
from workbench.formats.columns import (
    CHUNK_BYTES,
    FRONT,
    concat,
    concat_strings,
    default_threads,
    gather,
    gather_wide,
    parse_file,
    to_float,
    to_int,
)
from workbench.names import check_id

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "write_qrels", "write_run", "query_cuts",
           "CHUNK_BYTES", "default_threads"]


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgments as parallel arrays (one row per qrels line, file order).

    qid, docno: fixed-width byte-string arrays (numpy ``S`` dtype, compact, compare like
    C ``strcmp``); rel: int64 grades; line: 1-based line number of each row in ``path``.
    """

    qid: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    path: str = ""
    line: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.rel)


@dataclass(frozen=True, eq=False)
class Run:
    """A ranked result list file as parallel arrays (file order).

    qid, docno: ``S`` arrays; score: float64; rank: int64 when read with
    ``keep_rank=True`` else None; tag: the first tag of the file ("" if empty);
    tags: every distinct tag in order of appearance; last_tag: the last line's tag
    (trec_eval's runid); line: 1-based line numbers.
    """

    qid: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    tag: str = ""
    path: str = ""
    rank: np.ndarray | None = None
    tags: tuple[str, ...] = ()
    line: np.ndarray | None = field(default=None, repr=False)
    last_tag: str = ""

    def __len__(self) -> int:
        return len(self.score)


# ----------------------------------------------------------------------------- reading


def _check_duplicates(qid: np.ndarray, docno: np.ndarray, lines: np.ndarray, path: str) -> None:
    """The same docno twice for one query is an error naming the second line."""
    from workbench.metrics.encode import duplicate_pairs, factorize

    qc, _ = factorize(qid)
    dup = duplicate_pairs(qc, docno)
    if dup.size:
        i = int(dup[np.argmin(lines[dup])])
        raise InputError(
            path, int(lines[i]),
            f"duplicate document {docno[i].decode('utf-8', 'replace')!r} "
            f"for query {qid[i].decode('utf-8', 'replace')!r}",
        )

def _parse_qrels_chunk(buf, st, en, ln, name):
    return (
        gather_wide(buf, st[:, 0], en[:, 0]),
        gather_wide(buf, st[:, 2], en[:, 2]),
        to_int(buf, st[:, 3], en[:, 3], ln, name, "relevance (column 4)"),
        ln,
    )


def read_qrels(path, *, check_duplicates: bool = True, chunk_bytes: int | None = None,
               threads: int | None = None, byte_range: tuple[int, int] | None = None,
               line_numbers: bool = True) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``); raises InputError on bad input.

    check_duplicates=False skips the duplicate (qid, docno) check, for callers that
    check anyway (the evaluation does, and maps the row back to ``Qrels.line``).
    threads: parsing threads (default: up to 2). byte_range: as for read_run.
    chunk_bytes: bytes per parsing chunk (default: CHUNK_BYTES, 4x that with threads).
    line_numbers=False leaves ``Qrels.line`` None (saves memory; errors still name lines).
    """
    name, parts = parse_file(path, 4, "qid iter docno rel", _parse_qrels_chunk, chunk_bytes, threads,
                              byte_range)
    qid = concat_strings([p[0] for p in parts])
    docno = concat_strings([p[1] for p in parts])
    rel = concat([p[2] for p in parts], np.int64)
    line = concat([p[3] for p in parts], np.int64) if line_numbers or check_duplicates else None
    if check_duplicates:
        _check_duplicates(qid, docno, line, name)
    return Qrels(qid=qid, docno=docno, rel=rel, path=name, line=line if line_numbers else None)


def _run_chunk_parser(keep_rank: bool, all_tags: bool):
    def parse(buf, st, en, ln, name):
        # all_tags=False: only the chunk's first and last tags (the file's first names the
        # run, its last is trec_eval's runid)
        if all_tags:
            tag_tok = gather(buf, st[:, 5], en[:, 5])
        else:
            tag_tok = np.array([buf[FRONT + st[i, 5]:FRONT + en[i, 5]].tobytes() for i in (0, -1)])
        heads = np.flatnonzero(np.concatenate(([True], tag_tok[1:] != tag_tok[:-1])))
        return (
            gather_wide(buf, st[:, 0], en[:, 0]),
            gather_wide(buf, st[:, 2], en[:, 2]),
            to_float(buf, st[:, 4], en[:, 4], ln, name, "score (column 5)"),
            to_int(buf, st[:, 3], en[:, 3], ln, name, "rank (column 4)") if keep_rank else None,
            [t.decode("utf-8") for t in tag_tok[heads].tolist()],
            ln,
            tag_tok[-1].decode("utf-8"),
        )

    return parse


def read_run(path, *, keep_rank: bool = False, check_duplicates: bool = True,
             all_tags: bool = True, chunk_bytes: int | None = None,
             threads: int | None = None, byte_range: tuple[int, int] | None = None,
             line_numbers: bool = True) -> Run:
    """Read a TREC run file (``qid iter docno rank score tag``); raises InputError.

    byte_range (lo, hi): read only these bytes (both at line starts, see query_cuts);
    line numbers then count from lo (line 1 is the line starting at lo).
    keep_rank: also parse the rank column (integers) into ``Run.rank`` (for
    ``--ties rank``); otherwise it is ignored as trec_eval ignores it.
    check_duplicates, threads, chunk_bytes, line_numbers: as for read_qrels. all_tags=False
    collects only the first and last tag of each chunk (``Run.tags`` then lists those), a
    little faster.
    """
    name, parts = parse_file(path, 6, "qid iter docno rank score tag",
                              _run_chunk_parser(keep_rank, all_tags), chunk_bytes, threads,
                              byte_range, extra_columns=True)
    tags: list[str] = []
    for p in parts:
        for t in p[4]:
            if t not in tags:
                tags.append(t)
    qid = concat_strings([p[0] for p in parts])
    docno = concat_strings([p[1] for p in parts])
    line = concat([p[5] for p in parts], np.int64) if line_numbers or check_duplicates else None
    if check_duplicates:
        _check_duplicates(qid, docno, line, name)
    if not line_numbers:
        line = None
    return Run(
        qid=qid,
        docno=docno,
        score=concat([p[2] for p in parts], np.float64),
        tag=tags[0] if tags else "",
        path=name,
        rank=concat([p[3] for p in parts], np.int64) if keep_rank else None,
        tags=tuple(tags),
        line=line,
        last_tag=parts[-1][6] if parts else "",
    )


def query_cuts(path, parts: int, probe: int = 1 << 20) -> list[int]:
    """Byte offsets [0, c1, ..., size] cutting a run file into about `parts` equal pieces,
    each cut at the start of a line whose query id differs from the line before.

    With each query's lines together (as in any run file) no query then spans two
    pieces; callers must still check that (a cut only saves time, it proves nothing).
    A cut is left out when no query change is found within `probe` bytes.
    """
    size = os.path.getsize(path)
    cuts = [0]
    with open(path, "rb") as fh:
        for k in range(1, parts):
            pos = size * k // parts
            if pos <= cuts[-1] + 1:
                continue
            start = _query_change(fh, pos, probe)
            if start is not None and cuts[-1] < start < size:
                cuts.append(start)
    cuts.append(size)
    return cuts


def _query_change(fh, pos: int, probe: int) -> int | None:
    """The offset of the first line, after the first whole line at or after `pos`, whose
    query id differs from that line's; None if none within `probe` bytes.

    The lines are looked at one by one and read 64 KB at a time: a change usually comes
    within one query's lines, and the cuts are found before any worker starts (splitting
    a whole 1 MB probe into lines cost several milliseconds per cut).
    """
    fh.seek(pos - 1)
    block = fh.read(min(probe, 1 << 16))
    at = block.find(b"\n")  # block[0] is byte pos - 1
    if at < 0:
        return None
    i = at + 1  # the first whole line, in block
    prev = None
    while True:
        end = block.find(b"\n", i)
        if end < 0:  # the rest of the line is not read yet
            if len(block) >= probe:
                return None
            more = fh.read(min(probe - len(block), max(len(block), 1 << 16)))
            if not more:
                return None  # (a last line without a newline is not looked at)
            block += more
            continue
        tok = block[i:end].split(None, 1)
        if tok and not tok[0].startswith(b"#"):
            if prev is None:
                prev = tok[0]
            elif tok[0] != prev:
                return pos - 1 + i
        i = end + 1


# ----------------------------------------------------------------------------- writing


def _text(v) -> str:
    return v.decode("utf-8") if isinstance(v, (bytes, np.bytes_)) else str(v)


def _texts(values, what: str) -> list[str]:
    """The values as checked ids (each distinct value once): workbench.names' rule, which
    imports enforce; an id stored before that is InvalidName (one line, exit 1)."""
    out = [_text(v) for v in (values.tolist() if isinstance(values, np.ndarray) else values)]
    for v in dict.fromkeys(out):  # (first-seen order: the first bad value is reported)
        check_id(v, what)
    return out


def write_qrels(path_or_file, qid, docno, rel, *, iteration="0") -> None:
    """Write ``qid iter docno rel`` lines; path_or_file is a path or a text stream.
    `iteration` is one string for every line or one per line (trec_eval ignores it)."""
    rel = [int(r) for r in (rel.tolist() if isinstance(rel, np.ndarray) else rel)]
    iters = [str(iteration)] * len(rel) if isinstance(iteration, str) else [str(i) for i in iteration]
    lines = [
        f"{q} {i} {d} {r}\n"
        for q, i, d, r in zip(_texts(qid, "query id"), iters, _texts(docno, "document id"), rel)
    ]
    _write(path_or_file, lines)


def write_run(path_or_file, qid, docno, score, tag: str, *, rank=None) -> None:
    """Write ``qid Q0 docno rank score tag`` lines.

    Rows are written in the given order; rank defaults to 1.. within each query in that
    order. Scores are written with repr() precision so they read back exactly.
    """
    check_id(tag, "run tag")
    lines = []
    counter: dict[str, int] = {}
    for i, (q, d, s) in enumerate(zip(qid, docno, score)):
        qs = check_id(_text(q), "query id")
        if rank is None:
            r = counter.get(qs, 0) + 1
            counter[qs] = r
        else:
            r = int(rank[i])
        lines.append(f"{qs} Q0 {check_id(_text(d), 'document id')} {r} {float(s)!r} {tag}\n")
    _write(path_or_file, lines)


def _write(path_or_file, lines: list[str]) -> None:
    if isinstance(path_or_file, (str, os.PathLike)):
        from workbench.formats.output import atomic_output

        with atomic_output(path_or_file) as fh:  # nothing half-written on failure
            fh.writelines(lines)
    else:
        assert isinstance(path_or_file, io.TextIOBase) or hasattr(path_or_file, "write")
        path_or_file.writelines(lines)
