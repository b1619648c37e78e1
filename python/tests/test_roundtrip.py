"""compress/decompress round trips, on small cases and real files of both formats."""

from __future__ import annotations

from pathlib import Path

import pytest

import chesszip

SMALL = [
    b"",
    b"e4 e5 Nf3 Nc6 Bb5 a6 1-0\n",
    b"e4 e5 Nf3 Nc6 Bb5 a6 1-0",  # no final line feed
    b"d4 d5 c4 e6 0-1\r\nnot a game at all\r\n\r\n1/2-1/2\n",
    bytes(range(256)) * 3,  # not text
    b'[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n',
]


@pytest.mark.parametrize("data", SMALL, ids=range(len(SMALL)))
@pytest.mark.parametrize("level", [1, 2])
def test_small_inputs_round_trip(data: bytes, level: int) -> None:
    archive = chesszip.compress(data, level)
    assert chesszip.decompress(archive) == data
    info = chesszip.info(archive)
    if info.raw is None:
        assert info.level == level  # a block container records its level
    else:
        # The whole-input raw form (smaller for tiny inputs): no model, no blocks.
        assert (info.level, info.blocks, info.plies) == (0, 0, 0)
        assert info.text_bytes == len(data)


@pytest.mark.parametrize("level", [1, 2])
def test_block_container_records_its_level(benchmark_text: bytes, level: int) -> None:
    games = b"".join(benchmark_text.splitlines(keepends=True)[:8])
    info = chesszip.info(chesszip.compress(games, level))
    assert info.raw is None
    assert (info.level, info.games) == (level, 8)


def test_bytes_like_inputs() -> None:
    data = SMALL[1] * 10
    archive = chesszip.compress(data)
    assert chesszip.compress(bytearray(data)) == archive
    assert chesszip.compress(memoryview(data)) == archive
    assert chesszip.decompress(bytearray(archive)) == data
    with pytest.raises(TypeError):
        chesszip.compress("e4 e5 1-0\n")  # type: ignore[arg-type]


def test_benchmark_round_trip(benchmark_text: bytes, benchmark_archive: bytes) -> None:
    assert chesszip.decompress(benchmark_archive) == benchmark_text
    i = chesszip.info(benchmark_archive)
    assert (i.format, i.lines, i.games, i.plies, i.blocks) == ("movetext", 10_000, 10_000, 676_149, 10)
    assert i.text_bytes == len(benchmark_text) and i.archive_bytes == len(benchmark_archive)
    # The default level's model predicts moves: far below xz's 9.3 bits per ply (2.64 with model
    # version 5, 2.65 with version 4, 2.67 with the distilled network of version 3, 2.79 with
    # version 2, 3.14 with version 1).
    assert 2.0 < i.bits_per_ply < 3.2
    assert i.bits_per_ply == pytest.approx(i.archive_bytes * 8 / i.plies)


def test_options(benchmark_text: bytes) -> None:
    head = benchmark_text[:200_000]
    small_blocks = chesszip.compress(head, 1, block_lines=100, threads=1)
    assert chesszip.info(small_blocks).blocks > 5
    assert chesszip.decompress(small_blocks, threads=1) == head
    as_pgn = chesszip.compress(head, 1, format="pgn")
    assert chesszip.info(as_pgn).format == "pgn"
    assert chesszip.decompress(as_pgn) == head
    for bad in ({"level": 0}, {"level": 10}, {"block_lines": 0}, {"format": "zip"}):
        with pytest.raises(ValueError):
            chesszip.compress(head, **bad)  # type: ignore[arg-type]


def test_real_pgn_round_trips(shared) -> None:
    for path in [shared("pgn/lichess/2017-05.pgn"), shared("pgn/lichess/db_page_samples_all_versions.pgn")]:
        data = path.read_bytes()
        archive = chesszip.compress(data)
        assert chesszip.info(archive).format == "pgn", path
        assert chesszip.decompress(archive) == data, path


def test_pgn_edge_cases_round_trip(shared) -> None:
    files = sorted(p for p in Path(shared("pgn/edge-cases")).rglob("*") if p.is_file() and p.name != "LICENSE")
    assert len(files) > 100
    for path in files:
        data = path.read_bytes()
        archive = chesszip.compress(data, 1, block_lines=3)
        assert chesszip.decompress(archive) == data, path
        assert b"".join(chesszip.iter_games(archive, binary=True)) == data, path
