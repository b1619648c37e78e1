"""ChesszipFile and open(): the file object semantics of gzip.GzipFile."""

from __future__ import annotations

import io
from pathlib import Path
from typing import List

import pytest

import chesszip


def test_write_in_pieces_then_read(tmp_path: Path, benchmark_text: bytes, benchmark_archive: bytes) -> None:
    path = tmp_path / "bench.chz"
    with chesszip.open(path, "wb") as f:
        assert isinstance(f, chesszip.ChesszipFile) and f.writable() and not f.readable()
        at, sizes = 0, [1, 10, 100_000, 65_535, 3]
        while at < len(benchmark_text):
            size = sizes[at % len(sizes)]
            assert f.write(benchmark_text[at : at + size]) == len(benchmark_text[at : at + size])
            at += size
        assert f.tell() == len(benchmark_text)
    assert f.closed
    assert path.read_bytes() == benchmark_archive
    with chesszip.open(path) as f:
        assert f.readable() and not f.writable() and f.seekable()
        assert f.read(5) == benchmark_text[:5]
        assert f.readline() == benchmark_text[5 : benchmark_text.index(b"\n") + 1]
        assert f.peek(1)[:1] == benchmark_text[benchmark_text.index(b"\n") + 1 :][:1]
        rest = f.read()
        assert f.read() == b""
    assert benchmark_text.endswith(rest) and len(rest) == len(benchmark_text) - benchmark_text.index(b"\n") - 1


def test_file_objects_and_text_mode(benchmark_text: bytes, benchmark_lines: List[str], benchmark_archive: bytes) -> None:
    buf = io.BytesIO()
    with chesszip.open(buf, "wt") as t:
        for line in benchmark_lines[:2_000]:
            t.write(line)
    assert not buf.closed  # a file object given is not closed
    head = "".join(benchmark_lines[:2_000]).encode()
    assert buf.getvalue() == chesszip.compress(head)
    buf.seek(0)
    with chesszip.open(buf, "rt") as t:
        assert list(t) == benchmark_lines[:2_000]
    with chesszip.ChesszipFile(io.BytesIO(benchmark_archive)) as f:
        lines = list(f)
    assert lines == [line.encode() for line in benchmark_lines]
    chunk = bytearray(1_000)
    with chesszip.ChesszipFile(io.BytesIO(benchmark_archive)) as f:
        assert f.readinto(chunk) == 1_000 and bytes(chunk) == benchmark_text[:1_000]
        assert f.read1(10) == benchmark_text[1_000:1_010]
        assert f.tell() == 1_010


def test_modes_and_misuse(tmp_path: Path) -> None:
    path = tmp_path / "x.chz"
    with chesszip.open(path, "xb") as f:
        f.write(b"e4 e5 1-0\n")
    with pytest.raises(FileExistsError):
        chesszip.open(path, "xb")
    for mode in ["rw", "r+b", "rbt", "a+b"]:
        with pytest.raises(ValueError):
            chesszip.open(path, mode)
    with pytest.raises(ValueError):
        chesszip.open(path, "rb", encoding="utf-8")
    f = chesszip.open(path)
    with pytest.raises(io.UnsupportedOperation):
        f.write(b"x")  # type: ignore[union-attr]
    with pytest.raises(io.UnsupportedOperation):
        f.fileno()
    f.close()
    f.close()
    with pytest.raises(ValueError):
        f.read()
    w = chesszip.open(tmp_path / "y.chz", "wb")
    with pytest.raises(io.UnsupportedOperation):
        w.read()
    w.close()
    assert chesszip.decompress((tmp_path / "y.chz").read_bytes()) == b""
    with pytest.raises(FileNotFoundError) as e:
        chesszip.open(tmp_path / "missing.chz")
    assert e.value.filename == str(tmp_path / "missing.chz")


def test_compressor_matches_one_shot() -> None:
    data = b"".join(b"d4 Nf6 c4 e6 Nc3 Bb4 %d-0\n" % (i % 2) for i in range(3_000))
    c = chesszip.ChesszipCompressor(1, block_lines=500)
    out = [c.compress(data[i : i + 997]) for i in range(0, len(data), 997)]
    out.append(c.flush())
    assert b"".join(out) == chesszip.compress(data, 1, block_lines=500)
    with pytest.raises(ValueError):
        c.compress(b"more")
    with pytest.raises(ValueError):
        c.flush()
