"""The chunk reader on a file without newlines: it copied its growing carry
on every fixed-size read, so `eval` took 31 s on 256 MB. Now each read asks for as much as
is carried (the buffer doubles): log2(n / chunk) reads, each byte copied O(1) times."""

from __future__ import annotations

import io

import pytest

from workbench.formats.columns import FRONT, _chunks


class CountingReader(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.reads = 0
        self.asked = 0

    def readinto(self, b) -> int:
        self.reads += 1
        self.asked += len(b)
        return super().readinto(b)


@pytest.mark.parametrize("tail", [b"", b"\nq 0 d 1"])
def test_a_long_line_is_read_in_doubling_chunks(tail):
    data = b"x" * (1 << 20) + tail
    fh = CountingReader(data)
    chunks = [buf[FRONT:FRONT + size].tobytes() for buf, size in _chunks(fh, 1024)]
    assert b"".join(chunks) == data + b"\n"
    assert fh.reads <= 14  # 1024 · 2**10 = 1 MiB: about 11 reads, not 1 024
    assert fh.asked <= 4 * len(data)


def test_ordinary_lines_keep_the_chunk_size():
    data = b"".join(b"q%d 0 d 1\n" % i for i in range(2000))
    fh = CountingReader(data)
    chunks = [buf[FRONT:FRONT + size].tobytes() for buf, size in _chunks(fh, 1024)]
    assert b"".join(chunks) == data and len(chunks) >= len(data) // 1024
