"""TREC qrels and run files: vectorised readers and plain writers.

Formats (DESIGN §3):

- qrels: ``qid iter docno rel`` — ``iter`` ignored, ``rel`` an integer (negative = in the
  pool but unjudged), ``#`` lines are comments;
- run: ``qid iter docno rank score tag`` — ``rank`` ignored by evaluation (kept only on
  request, for ``--ties rank``), ``score`` a finite number.

Both: any ASCII whitespace between columns, blank lines skipped, CRLF and a UTF-8 byte
order mark accepted, ``#`` comment lines skipped. The same docno twice for one query is an
error (trec_eval refuses it too). A run file may carry several tags: the first one is the
run's tag (trec_eval keeps the last; a mixed file is almost always a concatenation and the
first tag names it as well as any); all distinct tags are listed in ``Run.tags``.

Why vectorised: a run of 1 000 queries × 1 000 documents is a million lines; the file is
read in chunks of whole lines and each chunk is tokenised with numpy byte operations, so
no Python object is created per line (a 1 GB file never becomes 1 GB of Python objects).
Every problem is reported as ``InputError(path, line, reason)``.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable

import numpy as np

from workbench.errors import InputError

__all__ = ["Qrels", "Run", "read_qrels", "read_run", "write_qrels", "write_run", "query_cuts", "CHUNK_BYTES"]

CHUNK_BYTES = 4 << 20  # bytes per parsing chunk (whole lines): small temporaries stay in cache
_BOM = b"\xef\xbb\xbf"
_NL, _HASH = 10, 35


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
    tags: every distinct tag in order of appearance; line: 1-based line numbers.
    """

    qid: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    tag: str = ""
    path: str = ""
    rank: np.ndarray | None = None
    tags: tuple[str, ...] = ()
    line: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.score)


# ----------------------------------------------------------------------------- reading


def _chunks(fh: BinaryIO, path: str, chunk_bytes: int,
            byte_range: tuple[int, int] | None = None) -> Iterable[bytes | memoryview]:
    """Yield chunks of whole lines (each ending in \n), without a leading BOM.

    byte_range (lo, hi): only those bytes of the file (lo and hi at line starts).
    Chunks are memoryviews into the blocks read where possible (no copy)."""
    carry = b""
    first = True
    left = None
    if byte_range is not None:
        fh.seek(byte_range[0])
        first = byte_range[0] == 0  # a BOM can only start the file
        left = max(0, byte_range[1] - byte_range[0])
    while True:
        if left is None:
            block = fh.read(chunk_bytes)
        else:
            block = fh.read(min(chunk_bytes, left)) if left else b""
            left -= len(block)
        if first:
            first = False
            if block.startswith(_BOM):
                block = block[len(_BOM):]
        if not block:
            break
        cut = block.rfind(b"\n")
        if cut < 0:
            carry += block
            continue
        view = memoryview(block)
        piece = carry + view[: cut + 1] if carry else view[: cut + 1]
        carry = bytes(view[cut + 1:])
        yield piece
    if carry:
        yield carry + b"\n"


def _count_lines(raw) -> int:
    return raw.count(b"\n") if isinstance(raw, bytes) else int(np.count_nonzero(np.frombuffer(raw, np.uint8) == _NL))


def _check_bytes(a: np.ndarray, raw: bytes, path: str, lines_before: int) -> None:
    """Refuse binary junk (control bytes other than whitespace) and invalid UTF-8."""
    # bytes 0-8 and 14-31 are junk; 9-13 (\t \n \v \f \r) are whitespace
    junk = (a < 9) | ((a - np.uint8(14)) < 18)
    if junk.any():
        pos = int(np.argmax(junk))
        line = lines_before + bytes(raw[:pos]).count(b"\n") + 1
        raise InputError(path, line, f"binary data (byte 0x{int(a[pos]):02x}); expected a text file")
    if a.size and int(a.max()) >= 128:
        try:
            str(raw, "utf-8")
        except UnicodeDecodeError as exc:
            line = lines_before + bytes(raw[: exc.start]).count(b"\n") + 1
            raise InputError(path, line, "invalid UTF-8 text") from None


def _tokenise(raw: bytes, path: str, lines_before: int, ncols: int, what: str,
              newline_count: list | None = None):
    """Split a chunk of whole lines into exactly `ncols` tokens per content line.

    (The caller adds raw.count(b"\\n") to lines_before for the next chunk.)

    Returns (a, starts, ends, line): `a` a uint8 view of the chunk (zero padded at the
    end), starts/ends (rows, ncols) byte offsets of the tokens, line the 1-based file
    line of each row.
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    _check_bytes(a, raw, path, lines_before)
    # nonws[i + 1] says whether byte i is part of a token; nonws[0] is a virtual space
    nonws = np.empty(a.size + 1, dtype=bool)
    nonws[0] = False
    np.greater(a, 32, out=nonws[1:])
    edges = np.flatnonzero(nonws[1:] != nonws[:-1])  # token starts and ends, alternating
    newlines = np.flatnonzero(a == _NL)
    if newline_count is not None:
        newline_count.append(newlines.size)  # (the caller's line count for the next chunk)
    padded = np.zeros(a.size + _PAD, dtype=np.uint8)
    padded[: a.size] = a
    rows = newlines.size
    # Fast path: every line holds exactly ncols tokens (no blank or comment lines).
    if edges.size == rows * ncols * 2 and rows:
        pairs = edges.reshape(rows, 2 * ncols)  # a view: no copy
        if (
            np.all(pairs[:, -1] <= newlines)
            and np.all(pairs[1:, 0] > newlines[:-1])
            and not np.any(a[pairs[:, 0]] == _HASH)
        ):
            line = np.arange(lines_before + 1, lines_before + rows + 1, dtype=np.int64)
            return padded, pairs[:, 0::2], pairs[:, 1::2], line
    starts = edges[0::2]
    ends = edges[1::2]  # the chunk ends with \n, so every token ends
    if starts.size == 0:
        empty = np.empty((0, ncols), dtype=np.int64)
        return padded, empty, empty, np.empty(0, dtype=np.int64)
    tok_line = np.searchsorted(newlines, starts)  # 0-based line within the chunk
    first = np.empty(starts.size, dtype=bool)
    first[0] = True
    np.not_equal(tok_line[1:], tok_line[:-1], out=first[1:])
    comment = first & (a[starts] == _HASH)
    if comment.any():
        bad_lines = np.zeros(newlines.size + 1, dtype=bool)
        bad_lines[tok_line[comment]] = True
        keep = ~bad_lines[tok_line]
        starts, ends, tok_line, first = starts[keep], ends[keep], tok_line[keep], first[keep]
        if starts.size == 0:
            empty = np.empty((0, ncols), dtype=np.int64)
            return padded, empty, empty, np.empty(0, dtype=np.int64)
    heads = np.flatnonzero(first)
    counts = np.diff(np.append(heads, starts.size))
    wrong = counts != ncols
    if wrong.any():
        i = int(np.argmax(wrong))
        line = lines_before + int(tok_line[heads[i]]) + 1
        raise InputError(
            path, line,
            f"expected {ncols} columns ({what}), found {int(counts[i])}",
        )
    rows = heads.size
    return (
        padded,
        starts.reshape(rows, ncols),
        ends.reshape(rows, ncols),
        tok_line[heads] + (lines_before + 1),
    )


_PAD = 64  # zero bytes after a chunk so that fixed-width windows never run off its end


def _gather(a: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Byte strings a[starts[i]:ends[i]] as one numpy ``S`` array (NUL padded).

    `a` must extend at least max(width) - 1 bytes past the last token (see _PAD), or
    the token is copied through a slower path.
    """
    n = starts.size
    if n == 0:
        return np.empty(0, dtype="S1")
    lengths = ends - starts
    width = int(lengths.max())
    if int(starts.max()) + width > a.size:
        a = np.concatenate((a, np.zeros(width, dtype=np.uint8)))
    windows = np.lib.stride_tricks.sliding_window_view(a, width)
    out = windows[starts]  # one copy of `width` bytes per token
    if int(lengths.min()) != width:
        out *= np.arange(width, dtype=np.int32)[None, :] < lengths[:, None]  # NUL the tails
    return out.view(f"S{width}").reshape(n)


def _first_bad(values: np.ndarray, convert) -> int:
    """Index of the first element `convert` rejects (slow path, errors only)."""
    for i, v in enumerate(values):
        try:
            x = convert(v)
        except (ValueError, OverflowError):
            return i
        if isinstance(x, float) and not np.isfinite(x):
            return i
    return -1


def _fast_ints(tokens: np.ndarray) -> np.ndarray | None:
    """Decimal integers ([-+]?[0-9]{1,18}) parsed with array arithmetic, or None when
    some token is anything else (numpy's per-element conversion is ~10x slower)."""
    w = tokens.dtype.itemsize
    if tokens.size == 0 or w > 19:
        return None
    m = tokens.view(np.uint8).reshape(tokens.size, w)
    first = m[:, 0]
    sign = (first == 45) | (first == 43)  # - +
    digits = m.astype(np.int64) - 48
    isdig = (digits >= 0) & (digits <= 9)
    body = m != 0
    body[:, 0] &= ~sign
    if not np.array_equal(isdig, body) or not body.any(axis=1).all():
        return None
    val = np.zeros(tokens.size, dtype=np.int64)
    for j in range(w):  # at most 19 columns
        col = isdig[:, j]
        val = np.where(col, val * 10 + digits[:, j], val)
    return np.where(first == 45, -val, val)


def _to_int(tokens: np.ndarray, lines: np.ndarray, path: str, column: str) -> np.ndarray:
    fast = _fast_ints(tokens)
    if fast is not None:
        return fast
    try:
        out = tokens.astype(np.int64)
    except (ValueError, OverflowError):
        i = _first_bad(tokens, lambda b: int(b.decode("utf-8", "replace"), 10))
        raise InputError(
            path, int(lines[i]),
            f"{column} must be an integer, found {tokens[i].decode('utf-8', 'replace')!r}",
        ) from None
    return out


def _to_float(tokens: np.ndarray, lines: np.ndarray, path: str, column: str) -> np.ndarray:
    try:
        out = tokens.astype(np.float64)
    except (ValueError, OverflowError):
        out = None
    if out is not None:
        bad = ~np.isfinite(out)
        if not bad.any():
            return out
        i = int(np.argmax(bad))
    else:
        i = _first_bad(tokens, lambda b: float(b))
    raise InputError(
        path, int(lines[i]),
        f"{column} must be a finite number, found {tokens[i].decode('utf-8', 'replace')!r}",
    )


def _concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    if not parts:
        return np.empty(0, dtype=dtype)
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _open(path) -> tuple[BinaryIO, str]:
    name = os.fspath(path)
    try:
        return open(name, "rb"), name
    except FileNotFoundError:
        raise InputError(name, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(name, None, f"cannot read: {exc.strerror or exc}") from None


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


def _parse_file(path, ncols: int, what: str, parse, chunk_bytes: int, threads: int | None,
                byte_range: tuple[int, int] | None = None):
    """Tokenise a file chunk by chunk and apply parse(a, starts, ends, lines, name) to
    each chunk with rows; returns (name, list of parse results in file order).

    Chunks are parsed by a small thread pool (numpy releases the GIL in the byte
    operations); results and the first error come back in file order.
    """
    fh, name = _open(path)

    def work(raw: bytes, before: int):
        a, st, en, ln = _tokenise(raw, name, before, ncols, what)
        return None if ln.size == 0 else parse(a, st, en, ln, name)

    def work_counted(raw: bytes, before: int):
        # one thread: the chunk's newline count comes from the tokeniser, no extra pass
        nl = []
        a, st, en, ln = _tokenise(raw, name, before, ncols, what, nl)
        return (None if ln.size == 0 else parse(a, st, en, ln, name)), nl[0]

    n_threads = _THREADS if threads is None else max(1, threads)
    out = []
    with fh:
        before = 0
        if n_threads == 1:
            for raw in _chunks(fh, name, chunk_bytes, byte_range):
                result, nl = work_counted(raw, before)
                out.append(result)
                before += nl
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=n_threads) as pool:
                pending = []
                for raw in _chunks(fh, name, chunk_bytes, byte_range):
                    pending.append(pool.submit(work, raw, before))
                    before += _count_lines(raw)
                    while len(pending) > n_threads:  # bound the memory in flight
                        out.append(pending.pop(0).result())
                for fut in pending:
                    out.append(fut.result())
    return name, [r for r in out if r is not None]


def default_threads() -> int:
    """Parsing threads: WORKBENCH_THREADS if set, else up to 2 (the files are parsed in
    16 MB chunks; more threads than cores only add contention)."""
    env = os.environ.get("WORKBENCH_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return min(2, os.cpu_count() or 1)


_THREADS = default_threads()


def _parse_qrels_chunk(a, st, en, ln, name):
    return (
        _gather(a, st[:, 0], en[:, 0]),
        _gather(a, st[:, 2], en[:, 2]),
        _to_int(_gather(a, st[:, 3], en[:, 3]), ln, name, "relevance (column 4)"),
        ln,
    )


def read_qrels(path, *, check_duplicates: bool = True, chunk_bytes: int = CHUNK_BYTES,
               threads: int | None = None, byte_range: tuple[int, int] | None = None,
               line_numbers: bool = True) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``); raises InputError on bad input.

    check_duplicates=False skips the duplicate (qid, docno) check, for callers that
    check anyway (the evaluation does, and maps the row back to ``Qrels.line``).
    threads: parsing threads (default: up to 2). byte_range: as for read_run.
    line_numbers=False leaves ``Qrels.line`` None (saves memory; errors still name lines).
    """
    name, parts = _parse_file(path, 4, "qid iter docno rel", _parse_qrels_chunk, chunk_bytes, threads,
                              byte_range)
    qid = _concat([p[0] for p in parts], "S1")
    docno = _concat([p[1] for p in parts], "S1")
    rel = _concat([p[2] for p in parts], np.int64)
    line = _concat([p[3] for p in parts], np.int64) if line_numbers or check_duplicates else None
    if check_duplicates:
        _check_duplicates(qid, docno, line, name)
    return Qrels(qid=qid, docno=docno, rel=rel, path=name, line=line if line_numbers else None)


def _run_chunk_parser(keep_rank: bool, all_tags: bool):
    def parse(a, st, en, ln, name):
        # all_tags=False: only the chunk's first tag (the evaluation needs the file's first)
        tag_tok = _gather(a, st[:, 5], en[:, 5]) if all_tags else _gather(a, st[:1, 5], en[:1, 5])
        heads = np.flatnonzero(np.concatenate(([True], tag_tok[1:] != tag_tok[:-1])))
        return (
            _gather(a, st[:, 0], en[:, 0]),
            _gather(a, st[:, 2], en[:, 2]),
            _to_float(_gather(a, st[:, 4], en[:, 4]), ln, name, "score (column 5)"),
            _to_int(_gather(a, st[:, 3], en[:, 3]), ln, name, "rank (column 4)") if keep_rank else None,
            [t.decode("utf-8") for t in tag_tok[heads].tolist()],
            ln,
        )

    return parse


def read_run(path, *, keep_rank: bool = False, check_duplicates: bool = True,
             all_tags: bool = True, chunk_bytes: int = CHUNK_BYTES,
             threads: int | None = None, byte_range: tuple[int, int] | None = None,
             line_numbers: bool = True) -> Run:
    """Read a TREC run file (``qid iter docno rank score tag``); raises InputError.

    byte_range (lo, hi): read only these bytes (both at line starts, see query_cuts);
    line numbers then count from lo (line 1 is the line starting at lo).
    keep_rank: also parse the rank column (integers) into ``Run.rank`` (for
    ``--ties rank``); otherwise it is ignored as trec_eval ignores it.
    check_duplicates, threads, line_numbers: as for read_qrels. all_tags=False collects
    only the first tag (``Run.tags`` then lists the tags found at chunk starts), a little faster.
    """
    name, parts = _parse_file(path, 6, "qid iter docno rank score tag",
                              _run_chunk_parser(keep_rank, all_tags), chunk_bytes, threads,
                              byte_range)
    tags: list[str] = []
    for p in parts:
        for t in p[4]:
            if t not in tags:
                tags.append(t)
    qid = _concat([p[0] for p in parts], "S1")
    docno = _concat([p[1] for p in parts], "S1")
    line = _concat([p[5] for p in parts], np.int64) if line_numbers or check_duplicates else None
    if check_duplicates:
        _check_duplicates(qid, docno, line, name)
    if not line_numbers:
        line = None
    return Run(
        qid=qid,
        docno=docno,
        score=_concat([p[2] for p in parts], np.float64),
        tag=tags[0] if tags else "",
        path=name,
        rank=_concat([p[3] for p in parts], np.int64) if keep_rank else None,
        tags=tuple(tags),
        line=line,
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
            fh.seek(pos - 1)
            block = fh.read(probe)
            at = block.find(b"\n")  # block[0] is byte pos - 1
            if at < 0:
                continue
            start = pos + at  # the first line starting at or after pos
            prev = None
            for line in block[at + 1:].split(b"\n")[:-1]:  # whole lines only
                tok = line.split(None, 1)
                if tok and not tok[0].startswith(b"#"):
                    if prev is None:
                        prev = tok[0]
                    elif tok[0] != prev:
                        if cuts[-1] < start < size:
                            cuts.append(start)
                        break
                start += len(line) + 1
    cuts.append(size)
    return cuts


# ----------------------------------------------------------------------------- writing


def _text(v) -> str:
    return v.decode("utf-8") if isinstance(v, (bytes, np.bytes_)) else str(v)


def _check_token(value: str, what: str) -> str:
    # the readers split on ASCII whitespace and control bytes (<= 0x20) only
    if not value or any(ord(c) <= 32 for c in value):
        raise ValueError(f"{what} {value!r} is empty or contains whitespace")
    if what == "qid" and value.startswith("#"):
        raise ValueError(f"qid {value!r} would read back as a comment line")
    return value


def write_qrels(path_or_file, qid, docno, rel, *, iteration: str = "0") -> None:
    """Write ``qid iter docno rel`` lines; path_or_file is a path or a text stream."""
    lines = [
        f"{_check_token(_text(q), 'qid')} {iteration} {_check_token(_text(d), 'docno')} {int(r)}\n"
        for q, d, r in zip(qid, docno, rel)
    ]
    _write(path_or_file, lines)


def write_run(path_or_file, qid, docno, score, tag: str, *, rank=None) -> None:
    """Write ``qid Q0 docno rank score tag`` lines.

    Rows are written in the given order; rank defaults to 1.. within each query in that
    order. Scores are written with repr() precision so they read back exactly.
    """
    _check_token(tag, "tag")
    lines = []
    counter: dict[str, int] = {}
    for i, (q, d, s) in enumerate(zip(qid, docno, score)):
        qs = _check_token(_text(q), "qid")
        if rank is None:
            r = counter.get(qs, 0) + 1
            counter[qs] = r
        else:
            r = int(rank[i])
        lines.append(f"{qs} Q0 {_check_token(_text(d), 'docno')} {r} {float(s)!r} {tag}\n")
    _write(path_or_file, lines)


def _write(path_or_file, lines: list[str]) -> None:
    if isinstance(path_or_file, (str, os.PathLike)):
        # Write to a temporary name, then rename: nothing half-written on failure.
        target = Path(path_or_file)
        tmp = target.with_name(target.name + ".tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(lines)
        os.replace(tmp, target)
    else:
        assert isinstance(path_or_file, io.TextIOBase) or hasattr(path_or_file, "write")
        path_or_file.writelines(lines)
