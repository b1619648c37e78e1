"""Errors: Python exceptions with the command line's messages, naming the damaged block."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import List

import pytest

import chesszip


def damaged(archive: bytes, block: int) -> bytes:
    """``archive`` with a byte flipped in the middle of block ``block``."""
    offsets = block_offsets(archive)
    b = bytearray(archive)
    b[(offsets[block] + offsets[block + 1]) // 2] ^= 0x10
    return bytes(b)


def block_offsets(archive: bytes) -> List[int]:
    """Offsets of the blocks and of the index, from the index (format in src/container/mod.rs)."""
    index_offset = struct.unpack_from("<Q", archive, len(archive) - 16)[0]
    assert archive[index_offset : index_offset + 4] == b"IDX\0"
    count = struct.unpack_from("<I", archive, index_offset + 4)[0]
    offsets = [struct.unpack_from("<Q", archive, index_offset + 8 + 32 * k)[0] for k in range(count)]
    return offsets + [index_offset]


def stderr_message(run_cli, *args) -> str:
    p = run_cli(*args, check=False)
    assert p.returncode == 1
    return p.stderr.decode().strip()


def test_damaged_block_is_named_as_the_command_line_names_it(run_cli, tmp_path: Path, benchmark_archive: bytes, benchmark_lines) -> None:
    bad = damaged(benchmark_archive, 3)
    path = tmp_path / "bad.chz"
    path.write_bytes(bad)
    with pytest.raises(chesszip.CorruptArchiveError) as e:
        chesszip.decompress(bad)
    message = str(e.value)
    assert message.startswith("corrupt archive: block 3")
    assert isinstance(e.value, chesszip.ChesszipError) and isinstance(e.value, ValueError)
    assert stderr_message(run_cli, "expand", "-c", path) == f"chesszip: {path}: {message}"
    # Streaming readers give the games of blocks 0-2, then the same error.
    seen = []
    with pytest.raises(chesszip.CorruptArchiveError) as e:
        for g in chesszip.iter_games(path):
            seen.append(g)
    assert seen == benchmark_lines[:3_000]
    assert str(e.value) == message
    with chesszip.open(path) as f:
        with pytest.raises(chesszip.CorruptArchiveError, match="block 3"):
            f.read()
    # Random access to other blocks still works; the damaged one fails.
    a = chesszip.Archive(path)
    assert a[9_999] == benchmark_lines[9_999]
    with pytest.raises(chesszip.CorruptArchiveError, match="block 3"):
        a[3_500]
    assert a[4_000] == benchmark_lines[4_000]
    assert a[10] == benchmark_lines[10]
    assert stderr_message(run_cli, "extract", "--game", "3501", path) == f"chesszip: {path}: {message}"


def test_not_an_archive(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "text.chz"
    path.write_bytes(b"e4 e5 Nf3 1-0\n" * 20)
    for call in [lambda: chesszip.decompress(path.read_bytes()), lambda: chesszip.info(path), lambda: chesszip.Archive(path)]:
        with pytest.raises(chesszip.CorruptArchiveError) as e:
            call()
        assert "not a chesszip archive" in str(e.value)
    # The command line also says what the file looks like and what to do with it, in `expand`,
    # `info` and `-l` alike.
    friendly = f"chesszip: {path}: not a chesszip archive (it looks like text: compress it with `chesszip {path}`)"
    assert stderr_message(run_cli, "expand", "-c", path) == friendly
    assert stderr_message(run_cli, "info", path) == friendly
    assert stderr_message(run_cli, "-l", path) == friendly


def test_truncated_archive(run_cli, tmp_path: Path, benchmark_archive: bytes) -> None:
    cut = benchmark_archive[: len(benchmark_archive) // 2]
    path = tmp_path / "cut.chz"
    path.write_bytes(cut)
    with pytest.raises(chesszip.CorruptArchiveError) as e:
        chesszip.decompress(cut)
    assert stderr_message(run_cli, "expand", "-c", path) == f"chesszip: {path}: {e.value}"
    with pytest.raises(chesszip.CorruptArchiveError, match="truncated"):
        chesszip.Archive(cut)


def test_os_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        chesszip.info(tmp_path / "missing.chz")
    with pytest.raises(IsADirectoryError):
        list(chesszip.iter_games(tmp_path))
    with pytest.raises(TypeError):
        chesszip.info(12)  # type: ignore[arg-type]


def test_negative_numbers_are_value_errors() -> None:
    data = b"e4 e5 Nf3 Nc6 1-0\n"
    archive = chesszip.compress(data, 1)
    with pytest.raises(ValueError, match="level must be"):
        chesszip.compress(data, -1)
    with pytest.raises(ValueError, match="level must be"):
        chesszip.compress(data, 300)
    # A bool is an int to Python; taken as a level it would silently be level 1.
    with pytest.raises(TypeError, match="not a bool"):
        chesszip.compress(data, True)
    with pytest.raises(TypeError, match="not a bool"):
        chesszip.ChesszipCompressor(level=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threads must be 0 or more"):
        chesszip.compress(data, threads=-1)
    with pytest.raises(ValueError, match="block_lines"):
        chesszip.compress(data, block_lines=-5)
    with pytest.raises(ValueError, match="threads"):
        chesszip.decompress(archive, threads=-1)
    with pytest.raises(ValueError, match="threads"):
        chesszip.ChesszipCompressor(threads=-2)
    with pytest.raises(ValueError, match="threads"):
        list(chesszip.iter_games(archive, threads=-1))
    with pytest.raises(ValueError, match="Limits.max_output"):
        chesszip.Limits(max_output=-1)
    assert chesszip.decompress(archive, threads=0, limits=chesszip.Limits(max_output=1 << 20)) == data
