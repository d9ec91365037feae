"""Whitespace-separated column files, tokenised with numpy byte operations.

The machinery under the TREC readers (``formats.trec``): a file is read in chunks of whole
lines, each chunk tokenised into (row, column) byte offsets with array operations, ids
gathered as fixed-width byte strings and numbers parsed with integer arithmetic on 8-byte
words (numpy's own conversion, kept for every other form, costs a Python float per value).
No Python object is created per line. Every problem is an ``InputError(path, line, reason)``.
"""

from __future__ import annotations

import io
import math
import os
import re
from functools import lru_cache
from typing import BinaryIO, Iterable

import numpy as np

from workbench.errors import InputError
from workbench.formats.textlines import GZIP_MAGIC, SEPARATORS_IN_LINE

__all__ = ["CHUNK_BYTES", "FRONT", "parse_file", "default_threads", "gather", "gather_wide",
           "to_int", "to_float", "concat", "concat_strings", "open_file"]

# Bytes per parsing chunk (whole lines), one thread: the many small temporaries per chunk
# stay in cache (4 MB chunks took ~40% more CPU). Threads get 4x that: with smaller chunks
# they spend their time waiting for each other's Python steps (the GIL).
CHUNK_BYTES = 256 << 10
# The longest line read: a line with no newline within 1 MiB of its start is refused with
# its file:line, before more of it is read (a 160 MB line without a newline was read whole,
# 1 GB of memory, before "expected 6 columns").
MAX_LINE = 1 << 20


class _LineTooLong(Exception):
    """Raised by _chunks; parse_file names the file and the line."""
_BOM = b"\xef\xbb\xbf"
_NL, _CR, _HASH = 10, 13, 35

# Each chunk sits in its own buffer: FRONT zero bytes, the chunk, then at least _PAD zero
# bytes, so that fixed-width windows around any token (up to 24 bytes ending at it, or a
# few words starting at it) stay inside the buffer without copying the chunk.
FRONT = 24
_PAD = 64


def _last_newline(a: np.ndarray) -> int:
    """Index of the last \\n in `a`, -1 if none (looks at the tail first)."""
    hi, step = a.size, 1 << 12
    while hi > 0:
        lo = max(0, hi - step)
        hits = np.flatnonzero(a[lo:hi] == _NL)
        if hits.size:
            return lo + int(hits[-1])
        hi, step = lo, step * 8
    return -1


def _padded(data: bytes) -> np.ndarray:
    buf = np.zeros(FRONT + len(data) + _PAD, dtype=np.uint8)
    buf[FRONT:FRONT + len(data)] = np.frombuffer(data, dtype=np.uint8)
    return buf


def _chunks(fh: BinaryIO, chunk_bytes: int,
            byte_range: tuple[int, int] | None = None) -> Iterable[tuple[np.ndarray, int]]:
    """Yield (buf, size) per chunk of whole lines: buf[FRONT:FRONT + size] holds the lines
    (each ending in a newline, no leading BOM), with zero bytes before and after (FRONT).

    Line ends follow `formats.textlines`: a lone \\r ends a line, and is made a \\n here
    (in place, the same length: byte offsets and cuts stay valid; \\r\\n is left to the
    tokeniser, which reads the \\r as whitespace).

    byte_range (lo, hi): only those bytes of the file (lo and hi at line starts).
    The file is read straight into the chunk buffers (readinto: no copy per chunk)."""
    left = None
    first = True
    if byte_range is not None:
        fh.seek(byte_range[0])
        first = byte_range[0] == 0  # a BOM can only start the file
        left = max(0, byte_range[1] - byte_range[0])
    # The bytes after the last newline, carried into the next chunk. A file without newlines
    # carries everything: each read then asks for as much as is carried, so the buffer
    # doubles and the copies add up to O(n); a fixed read size copied the growing carry on
    # every read (256 MB took 31 s).
    carry = np.empty(0, dtype=np.uint8)
    while True:
        want = max(chunk_bytes, carry.size)
        if first:
            want = max(want, len(_BOM))  # (a whole BOM)
        if left is not None:
            want = min(want, left)
        c = carry.size
        buf = np.empty(FRONT + c + want + _PAD, dtype=np.uint8)
        got = fh.readinto(memoryview(buf)[FRONT + c:FRONT + c + want]) if want else 0
        if not got:
            break
        if left is not None:
            left -= got
        skip = 0  # the BOM's bytes, dropped by moving the chunk's start
        if first:
            first = False
            if buf[FRONT:FRONT + min(got, len(_BOM))].tobytes() == _BOM:
                skip = len(_BOM)
        buf = buf[skip:]
        buf[:FRONT] = 0
        buf[FRONT:FRONT + c] = carry
        n = c + got - skip
        _lone_crs_to_newlines(buf[FRONT:FRONT + n], final=left == 0)
        cut = _last_newline(buf[FRONT:FRONT + n])
        if cut < 0:
            carry = buf[FRONT:FRONT + n]  # a view: copied once into the next, larger buffer
            if carry.size > MAX_LINE:
                raise _LineTooLong()
            continue
        size = cut + 1
        long_at = _long_line(buf[FRONT:FRONT + size])
        if long_at >= 0:  # a line over the cap that ends in this chunk (chunks > 1 MiB)
            if long_at:  # the lines before it are parsed first: their errors first
                buf[FRONT + long_at:FRONT + long_at + _PAD] = 0
                yield buf[:FRONT + long_at + _PAD], long_at
            raise _LineTooLong()
        carry = buf[FRONT + size:FRONT + n].copy()
        if carry.size > MAX_LINE:  # (the chunk's lines are parsed first: their errors first)
            yield buf[:FRONT + size + _PAD], size
            raise _LineTooLong()
        buf[FRONT + size:FRONT + size + _PAD] = 0
        yield buf[:FRONT + size + _PAD], size
    if carry.size:
        yield _padded(carry.tobytes() + b"\n"), carry.size + 1


def _long_line(a: np.ndarray, limit: int = MAX_LINE) -> int:
    """Where the first line of `a` (whole lines, ending in \\n) longer than `limit` bytes
    before its newline starts, -1 if none. A carried line is capped as it is read (_chunks);
    this finds one that ends inside a chunk, so that the cap does not depend on the chunk
    size (a 3 MB line was refused in 64 KB chunks and read in 4 MB ones).

    Such a line covers a whole block of limit // 2 bytes, so one memchr per block (each
    stops at the block's first newline, a few bytes in) finds the candidates; only a block
    without a newline is measured. Chunks of at most `limit` + 1 bytes cost nothing."""
    if a.size <= limit + 1:
        return -1
    step = max(1, limit // 2)
    at = 0
    while at + step <= a.size:
        if _find_byte(a[at:at + step], _NL) >= 0:
            at += step
            continue
        start = _last_newline(a[:at]) + 1
        end = at + step + _find_byte(a[at + step:], _NL)  # (a ends in a newline)
        if end - start > limit:
            return start
        at = end + 1
    return -1


def _lone_crs_to_newlines(a: np.ndarray, final: bool) -> None:
    """textlines' rule on a chunk, in place: each \\r not followed by \\n becomes \\n (a
    \\r ending the chunk only when `final`: its \\n may be in the next read).

    Cost per MB (reading costs ~3.3 ms): a file without \\r, one memchr (~0.03 ms; a
    copy for bytes.find cost 5x that); a CRLF file, a few array passes (~0.2 ms)."""
    at = _find_cr(a)
    if at < 0:
        return
    rest = a[at:]
    lone = rest[:-1] == _CR  # (a \\r ending the chunk: below)
    lone &= rest[1:] != _NL
    if lone.any():
        rest[np.flatnonzero(lone)] = _NL
    if final and a[-1] == _CR:
        a[-1] = _NL


@lru_cache(maxsize=None)
def _memchr():
    """libc's memchr through ctypes (searches the array in place), None where missing."""
    try:
        import ctypes

        # the process's own symbols, libc's among them: ctypes.util.find_library would
        # import subprocess and run ldconfig (~15 ms of every `eval`)
        fn = ctypes.CDLL(None).memchr
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
        return fn
    except Exception:  # noqa: BLE001 (no C library found: the portable way below)
        return None


def _find_cr(a: np.ndarray) -> int:
    """Index of the first \\r in the contiguous uint8 array `a`, -1 if none."""
    return _find_byte(a, _CR)


def _find_byte(a: np.ndarray, byte: int) -> int:
    """Index of the first `byte` in the contiguous uint8 array `a`, -1 if none."""
    memchr = _memchr()
    if memchr is None or not a.size:
        return a.tobytes().find(bytes([byte]))
    base = a.ctypes.data
    hit = memchr(base, byte, a.size)
    return -1 if hit is None else hit - base


def _count_lines(buf: np.ndarray, size: int) -> int:
    return int(np.count_nonzero(buf[FRONT:FRONT + size] == _NL))


def _check_bytes(a: np.ndarray, path: str, lines_before: int, newlines: int | None = None) -> None:
    """Refuse binary junk (control bytes other than tab, \\n and \\r), a vertical tab or
    form feed inside a line (textlines' rule and message), and invalid UTF-8.

    newlines: the chunk's count of newlines if known; when it equals the count of all
    control bytes (no tabs, no CR), there is no junk and no further pass is needed."""
    # bytes 0-8, 11, 12 and 14-31 are refused; 9, 10 and 13 (\t \n \r) are whitespace
    if newlines is None or int(np.count_nonzero(a < 32)) != newlines:
        if (a < 9).any() or ((a - np.uint8(14)) < 18).any() or ((a - np.uint8(11)) < 2).any():
            junk = (a < 9) | ((a - np.uint8(14)) < 18) | ((a - np.uint8(11)) < 2)
            pos = int(np.argmax(junk))
            line = lines_before + int(np.count_nonzero(a[:pos] == _NL)) + 1
            byte = bytes([int(a[pos])])
            reason = SEPARATORS_IN_LINE.get(byte) or f"binary data (byte 0x{byte[0]:02x}); expected a text file"
            raise InputError(path, line, reason)
    if a.size and int(a.max()) >= 128:
        try:
            str(memoryview(a), "utf-8")
        except UnicodeDecodeError as exc:
            line = lines_before + int(np.count_nonzero(a[: exc.start] == _NL)) + 1
            raise InputError(path, line, "invalid UTF-8 text") from None


def _tokenise(buf: np.ndarray, size: int, path: str, lines_before: int, ncols: int, what: str,
              newline_count: list | None = None, extra_columns: bool = False):
    """Split a chunk of whole lines (from _chunks) into exactly `ncols` tokens per content line
    (with extra_columns, at least `ncols`: the first `ncols` of each line are kept).

    (The caller adds the chunk's line count to lines_before for the next chunk.)

    Returns (starts, ends, line): starts/ends (rows, ncols) byte offsets of the tokens
    from the chunk's start, line the 1-based file line of each row.
    """
    a = buf[FRONT:FRONT + size]
    n_newlines = int(np.count_nonzero(a == _NL))
    _check_bytes(a, path, lines_before, n_newlines)
    # nonws[i + 1] says whether byte i is part of a token; nonws[0] is a virtual space
    nonws = np.empty(a.size + 1, dtype=bool)
    nonws[0] = False
    np.greater(a, 32, out=nonws[1:])
    edges = np.flatnonzero(nonws[1:] != nonws[:-1])  # token starts and ends, alternating
    # Fast path: every line holds exactly ncols tokens (no blank or comment lines). With as
    # many newlines as rows, and one right after (or \r\n after) each row's last token,
    # each row is one whole line; no newline positions needed.
    rows = edges.size // (2 * ncols)
    if rows and edges.size == rows * ncols * 2:
        pairs = edges.reshape(rows, 2 * ncols)  # a view: no copy
        tail = buf[FRONT:]  # the chunk and its zero padding
        last_end = pairs[:, -1]
        after = tail[last_end]
        row_ends = (after == _NL).all() or (
            (after == _NL) | ((after == _CR) & (tail[last_end + 1] == _NL))).all()
        if row_ends and n_newlines == rows and not (tail[pairs[:, 0]] == _HASH).any():
            if newline_count is not None:
                newline_count.append(rows)  # (the caller's line count for the next chunk)
            line = np.arange(lines_before + 1, lines_before + rows + 1, dtype=np.int64)
            return pairs[:, 0::2], pairs[:, 1::2], line
    newlines = np.flatnonzero(a == _NL)
    if newline_count is not None:
        newline_count.append(newlines.size)
    starts = edges[0::2]
    ends = edges[1::2]  # the chunk ends with \n, so every token ends
    empty = np.empty((0, ncols), dtype=np.int64)
    if starts.size == 0:
        return empty, empty, np.empty(0, dtype=np.int64)
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
            return empty, empty, np.empty(0, dtype=np.int64)
    heads = np.flatnonzero(first)
    counts = np.diff(np.append(heads, starts.size))
    wrong = counts < ncols if extra_columns else counts != ncols
    if wrong.any():
        i = int(np.argmax(wrong))
        line = lines_before + int(tok_line[heads[i]]) + 1
        raise InputError(
            path, line,
            f"expected {ncols} columns ({what}), found {int(counts[i])}",
        )
    if extra_columns and heads.size * ncols != starts.size:
        # drop each line's tokens after the first ncols
        keep = np.arange(starts.size) - np.repeat(heads, counts) < ncols
        starts, ends, heads = starts[keep], ends[keep], np.arange(heads.size) * ncols
        tok_line = tok_line[keep]
    rows = heads.size
    return (
        starts.reshape(rows, ncols),
        ends.reshape(rows, ncols),
        tok_line[heads] + (lines_before + 1),
    )


def _windows(buf: np.ndarray, width: int, shift: int) -> np.ndarray:
    """w[i] = the `width` bytes at chunk offset i + shift, as one void item (a view)."""
    base = FRONT + shift
    return np.ndarray((buf.size - base - width + 1,), dtype=f"V{width}", buffer=buf,
                      offset=base, strides=(1,))


def _rep(byte: int) -> np.uint64:
    return np.uint64(int.from_bytes(bytes([byte]) * 8, "little"))


_ZEROS, _HIGH_BITS, _ABOVE_NINE = _rep(48), _rep(0x80), _rep(0x76)
_DOT_Z = 46 ^ 48  # '.' once '0' is xor-ed away
# byte i of word w times _POSITIONS[w]: 8 * w + i + 1 in the top byte
_POSITIONS = np.array([0x0102030405060708, 0x090A0B0C0D0E0F10, 0x1112131415161718], dtype=np.uint64)


@lru_cache(maxsize=None)
def _byte_masks(words: int, from_left: bool) -> np.ndarray:
    """t[k] (k = 0..8*words): `words` uint64 masks with the first k bytes set (or the last
    k bytes, from_left=False), little-endian."""
    n = 8 * words
    t = np.zeros((n + 1, n), dtype=np.uint8)
    for k in range(n + 1):
        if from_left:
            t[k, :k] = 0xFF
        else:
            t[k, n - k:] = 0xFF
    return t.view(np.uint64)


@lru_cache(maxsize=None)
def _high_byte_masks(words: int, low: int) -> np.ndarray:
    """_byte_masks(words, False) without its `low` lowest words."""
    return np.ascontiguousarray(_byte_masks(words, False)[:, low:])


def gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Byte strings chunk[starts[i]:ends[i]] as one numpy ``S`` array (NUL padded)."""
    out, width = gather_wide(buf, starts, ends)
    return out if out.itemsize == width else _narrow(out, width)


def gather_wide(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, int]:
    """(tokens as an S array of whole 8-byte words, NUL padded; the longest token's length):
    the readers narrow the items once, when joining the chunks (concat)."""
    n = starts.size
    if n == 0:
        return np.empty(0, dtype="S1"), 1
    lengths = ends - starts
    width = int(lengths.max())
    words = -(-width // 8)
    if int(starts[-1]) + 8 * words > buf.size - FRONT:  # a long token near the end (starts grow)
        buf = np.concatenate((buf, np.zeros(8 * words, dtype=np.uint8)))
    # whole 8-byte words per token (one fancy index), then the bytes past each end zeroed
    out = _windows(buf, 8 * words, 0)[starts]
    if words <= 8:
        out = out.view(np.uint64).reshape(n, words)
        out &= _byte_masks(words, True).take(lengths, axis=0)
    else:  # long tokens: a mask per token (a table would grow with the square)
        out = out.view(np.uint8).reshape(n, 8 * words)
        out *= np.arange(8 * words)[None, :] < lengths[:, None]
    return out.view(f"S{8 * words}").reshape(n), width


def _narrow(s: np.ndarray, width: int) -> np.ndarray:
    """The first `width` bytes of each item of S array `s` (a byte copy, not an S->S cast)."""
    return s.view(_field(width, s.itemsize))["s"].copy()


@lru_cache(maxsize=None)
def _pow10_after(width: int) -> np.ndarray:
    """By the window index just past the dot (0: no dot): 10 ** (digits after the dot)."""
    return np.array([1.0] + [10.0 ** (width - j) for j in range(1, width + 1)])


def _swar8(z: np.ndarray) -> np.ndarray:
    """Each uint64 of 8 digit values (bytes 0-9, first digit in the low byte) to its
    integer, in place: digit pairs, then quads, then all 8 (SWAR, 3 multiplications)."""
    z *= np.uint64(10 * 256 + 1)
    z >>= np.uint64(8)
    z &= np.uint64(0x00FF00FF00FF00FF)
    z *= np.uint64(100 * 65536 + 1)
    z >>= np.uint64(16)
    z &= np.uint64(0x0000FFFF0000FFFF)
    z *= np.uint64(10000 * 2**32 + 1)
    z >>= np.uint64(32)
    return z


def _fast_decimals(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, dot: bool):
    """Decimal numbers parsed with array arithmetic (numpy's per-element conversion is far
    slower): ``[-+]?D+`` and, with `dot`, ``[-+]?D+.D*`` or ``[-+]?.D+``, at most 16
    digits. Returns (values, ok): int64 (or float64 with `dot`), and whether each token had
    that form; other tokens' values are meaningless.

    Floats: the digits as an integer m <= 2**53 divided by 10**f (f <= 16); both are exact
    doubles, so the IEEE division is the correctly rounded value of the decimal, the same
    double as float(token) (Clinger's fast path).
    """
    n = starts.size
    first = buf[FRONT:][starts]
    if not dot and int((ends - starts).max()) == 1:  # single digits (qrels grades)
        first -= np.uint8(48)
        return first.astype(np.int64), first <= 9
    neg = first == 45  # -
    body = ends - starts
    body -= neg | (first == 43)  # digits and dot after any sign
    longest = int(body.max())
    words = 1 if longest <= 8 else 2 if longest <= 16 or not dot else 3
    width = 8 * words
    # The last `width` bytes of each token, right-aligned (little-endian: last byte on
    # top), xor '0': digits become their values; bytes before the body are zeroed.
    z = _windows(buf, width, -width)[ends].view(np.uint64).reshape(n, words)
    z ^= _ZEROS
    z &= _byte_masks(words, False).take(np.minimum(body, width), axis=0)
    ok = body <= width
    ndigits = body
    after = None  # per token: the window index just past its dot, 0 if none
    if dot:
        # the dot's byte index i gives i + 1, by one multiplication per word (several
        # dots: a wrong place, and a dot left over that fails below)
        at = (z.view(np.uint8) == _DOT_Z).view(np.uint64).reshape(n, words)
        for w in range(words):  # (a column at a time: broadcasting a row is slow)
            at[:, w] *= _POSITIONS[w]
        at >>= np.uint64(56)
        after = at[:, 0].view(np.int64)
        for w in range(1, words):
            after += at[:, w].view(np.int64)
        np.minimum(after, width, out=after)
        if after.any():
            ndigits = body - np.minimum(after, 1)
            ok &= ndigits >= 1
            # drop the dot: the bytes before it move up one byte; the lowest word ends up
            # empty (and is left out) when the digits fit in the others
            low = 1 if words > 1 and int(ndigits.max()) <= width - 8 else 0
            up = z[:, low:] << np.uint64(8)
            for w in range(max(low, 1), words):
                up[:, w - low] |= z[:, w - 1] >> np.uint64(56)
            z = z[:, low:] ^ up
            z &= _high_byte_masks(words, low).take(width - after, axis=0)
            z ^= up
            words -= low
        else:
            after = None
    if after is None:
        ok &= body >= 1
    if words == 3:
        ok &= ndigits <= 16  # (more digits would overflow m below)
    # every byte a digit (0-9): the lowest other byte sets its top bit (no carry into it)
    bad = z + _ABOVE_NINE
    bad |= z
    for w in range(1, words):
        bad[:, 0] |= bad[:, w]
    bad = bad[:, 0] & _HIGH_BITS
    ok &= bad == 0
    _swar8(z)
    m = z[:, 0]
    for w in range(1, words):
        m = m * np.uint64(10**8)
        m += z[:, w]
    if dot:
        if words > 1:
            ok &= m <= np.uint64(2**53)
        values = m.astype(np.float64)
        if after is not None:
            values /= _pow10_after(width).take(after)
    else:
        values = m.astype(np.int64)
    np.negative(values, out=values, where=neg)
    return values, ok


# One digit rule for numbers in qrels and runs, on the fast path and the error path alike:
# ASCII digits only, an optional sign, integers within int64, floats in
# decimal or exponent notation and finite. Python's int() and float() (and numpy's
# conversion, which uses them) also take Unicode digits ("٣"), underscores ("1_000") and
# integers of any size, so the error path found no bad token and named the wrong line.
# trec_eval's atoi/atof would read "1_000" as 1; the workbench refuses it with file:line.
_INT_SYNTAX = re.compile(rb"[-+]?[0-9]+")
_FLOAT_SYNTAX = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INT64_MAX = 2**63 - 1


def ascii_int(token: bytes) -> int:
    """The integer `token` spells under the digit rule above; ValueError otherwise."""
    if _INT_SYNTAX.fullmatch(token) is None:
        raise ValueError(token)
    value = int(token)
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise ValueError(token)
    return value


def ascii_float(token: bytes) -> float:
    """The finite number `token` spells under the digit rule above; ValueError otherwise."""
    if _FLOAT_SYNTAX.fullmatch(token) is None:
        raise ValueError(token)
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(token)
    return value


def _first_bad(values: np.ndarray, convert) -> int:
    """Index of the first element `convert` (ascii_int, ascii_float) rejects (errors only)."""
    for i, v in enumerate(values):
        try:
            convert(v)
        except (ValueError, OverflowError):
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


def _tokens_to_int(tokens: np.ndarray, lines: np.ndarray, path: str, column: str) -> np.ndarray:
    fast = _fast_ints(tokens)
    if fast is not None and tokens.dtype.itemsize < 19:  # (19 digits may overflow int64)
        return fast
    i = _first_bad(tokens, ascii_int)
    if i >= 0:
        raise InputError(
            path, int(lines[i]),
            f"{column} must be an integer, "
            f"found {tokens[i].decode('utf-8', 'replace')!r}",
        )
    return np.array([ascii_int(t) for t in tokens], dtype=np.int64)


def _tokens_to_float(tokens: np.ndarray, lines: np.ndarray, path: str, column: str) -> np.ndarray:
    out = None
    if tokens.size and not (tokens.view(np.uint8) == 95).any():  # "_": numpy reads 1_000
        try:
            out = tokens.astype(np.float64)
        except (ValueError, OverflowError):
            out = None
    if out is not None and np.isfinite(out).all():
        return out
    i = _first_bad(tokens, ascii_float)
    if i < 0:  # (numpy refused what the rule accepts: not expected; read them one by one)
        return np.array([ascii_float(t) for t in tokens], dtype=np.float64)
    raise InputError(
        path, int(lines[i]),
        f"{column} must be a finite number, found {tokens[i].decode('utf-8', 'replace')!r}",
    )


def _convert(buf, starts, ends, lines, path, column, dot: bool) -> np.ndarray:
    """Numbers of one column: the array-arithmetic parse, and numpy's conversion for the
    tokens it does not cover. On any error the whole column goes through numpy's
    conversion again, so that the error (line and message) is exactly as before."""
    values, ok = _fast_decimals(buf, starts, ends, dot)
    if ok.all():
        return values
    slow = _tokens_to_float if dot else _tokens_to_int
    rest = np.flatnonzero(~ok)
    try:
        values[rest] = slow(gather(buf, starts[rest], ends[rest]), lines[rest], path, column)
    except InputError:
        slow(gather(buf, starts, ends), lines, path, column)
        raise
    return values


def to_int(buf, starts, ends, lines, path: str, column: str) -> np.ndarray:
    return _convert(buf, starts, ends, lines, path, column, dot=False)


def to_float(buf, starts, ends, lines, path: str, column: str) -> np.ndarray:
    return _convert(buf, starts, ends, lines, path, column, dot=True)


def concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    if not parts:
        return np.empty(0, dtype=dtype)
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def concat_strings(parts: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """One S array, as wide as the longest token, from gather_wide's (items, width) parts:
    byte copies (np.concatenate would cast S->S item by item, ~20x slower)."""
    if not parts:
        return np.empty(0, dtype="S1")
    width = max(w for _, w in parts)
    out = np.empty(sum(p.size for p, _ in parts), dtype=f"S{width}")
    at = 0
    for p, _ in parts:
        common = min(p.itemsize, width)
        part = p if p.itemsize == common else p.view(_field(common, p.itemsize))["s"]
        dest = out[at:at + p.size]
        if common == width:
            dest[...] = part
        else:  # (the part's items are narrower: the rest of each item is zeroed)
            dest.view(_field(common, width))["s"] = part
            dest.view(np.uint8).reshape(p.size, width)[:, common:] = 0
        at += p.size
    return out


def _field(width: int, itemsize: int) -> np.dtype:
    """A dtype viewing the first `width` bytes of `itemsize`-byte items as one S field."""
    return np.dtype({"names": ["s"], "formats": [f"S{width}"], "offsets": [0], "itemsize": itemsize})


def open_file(path) -> tuple[BinaryIO, str]:
    """The file for reading bytes (a gzip file decompressed as it is read) and its name."""
    name = os.fspath(path)
    try:
        fh = open(name, "rb")
        if fh.read(2) == GZIP_MAGIC:
            import gzip

            fh.close()
            return gzip.open(name, "rb"), name  # type: ignore[return-value]
        fh.seek(0)
        return fh, name
    except FileNotFoundError:
        raise InputError(name, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(name, None, f"cannot read: {exc.strerror or exc}") from None


def parse_file(path, ncols: int, what: str, parse, chunk_bytes: int | None, threads: int | None,
               byte_range: tuple[int, int] | None = None, extra_columns: bool = False):
    """Tokenise a file chunk by chunk and apply parse(buf, starts, ends, lines, name) to
    each chunk with rows; returns (name, list of parse results in file order).
    extra_columns: lines may hold more than `ncols` tokens (the rest are ignored).

    Chunks are parsed by a small thread pool (numpy releases the GIL in the byte
    operations); results and the first error come back in file order.
    """
    fh, name = open_file(path)

    def work(buf: np.ndarray, size: int, before: int):
        st, en, ln = _tokenise(buf, size, name, before, ncols, what, None, extra_columns)
        return None if ln.size == 0 else parse(buf, st, en, ln, name)

    def work_counted(buf: np.ndarray, size: int, before: int):
        # one thread: the chunk's newline count comes from the tokeniser, no extra pass
        nl = []
        st, en, ln = _tokenise(buf, size, name, before, ncols, what, nl, extra_columns)
        return (None if ln.size == 0 else parse(buf, st, en, ln, name)), nl[0]

    n_threads = THREADS if threads is None else max(1, threads)
    if threads is None and n_threads > 1 and _plain_size(fh) < SMALL_FILE:
        n_threads = 1
    if chunk_bytes is None:
        chunk_bytes = CHUNK_BYTES if n_threads == 1 else 4 * CHUNK_BYTES
    out: list = []
    lines_before = [0]
    try:
        _read_chunks(fh, chunk_bytes, byte_range, n_threads, work, work_counted, out,
                     lines_before)
    except (EOFError, OSError) as exc:  # a damaged or truncated gzip file
        raise InputError(name, None, f"cannot read: {exc}") from None
    except _LineTooLong:
        raise InputError(name, lines_before[0] + 1,
                         f"line longer than {MAX_LINE >> 20} MiB without a newline: expected "
                         f"{what}; stopped reading there") from None
    return name, [r for r in out if r is not None]


def _read_chunks(fh, chunk_bytes, byte_range, n_threads, work, work_counted, out,
                 lines_before: list[int]) -> None:
    """parse_file's loop: each chunk's result appended to `out`, in file order;
    lines_before[0]: the lines of the chunks read so far (where a too long line starts)."""
    with fh:
        before = 0
        if n_threads == 1:
            for buf, size in _chunks(fh, chunk_bytes, byte_range):
                result, nl = work_counted(buf, size, before)
                out.append(result)
                before += nl
                lines_before[0] = before
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=n_threads) as pool:
                pending = []
                try:
                    for buf, size in _chunks(fh, chunk_bytes, byte_range):
                        pending.append(pool.submit(work, buf, size, before))
                        before += _count_lines(buf, size)
                        lines_before[0] = before
                        while len(pending) > n_threads:  # bound the memory in flight
                            out.append(pending.pop(0).result())
                except _LineTooLong:  # the lines before it first: their errors come first
                    for fut in pending:
                        fut.result()
                    raise
                for fut in pending:
                    out.append(fut.result())


# Below this size a plain file is parsed on one thread: the pool's start (and the import of
# concurrent.futures) costs more than the second thread saves (a 2 MB TREC-8 run: 5 ms
# either way warm, 5 ms more for the pool in a new process; 8 MB: 30 ms on one, 21 on two).
SMALL_FILE = 4 << 20


def _plain_size(fh) -> float:
    """The size of a plain file; infinity for a gzip stream or anything without one."""
    try:
        return os.fstat(fh.fileno()).st_size if isinstance(fh, io.BufferedReader) else float("inf")
    except (OSError, ValueError):
        return float("inf")


def default_threads() -> int:
    """Parsing threads: WORKBENCH_THREADS if set, else up to 2 of the cores this process
    may use (more threads than cores only add contention; past 2, reading waits on the
    chunking, which is serial)."""
    from workbench.cores import usable_cpus

    env = os.environ.get("WORKBENCH_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return min(2, usable_cpus())


THREADS = default_threads()
