"""Games one at a time: iteration, random access, python-chess objects."""

from __future__ import annotations

import io
import re
from typing import List

import chess
import chess.pgn
import pytest

import chesszip


def test_iteration_gives_the_lines(benchmark_archive: bytes, benchmark_lines: List[str]) -> None:
    assert list(chesszip.iter_games(benchmark_archive)) == benchmark_lines
    assert list(chesszip.Archive(benchmark_archive)) == benchmark_lines


def test_iteration_from_a_path_and_a_file_object(tmp_path, benchmark_archive: bytes, benchmark_lines: List[str]) -> None:
    path = tmp_path / "bench.chz"
    path.write_bytes(benchmark_archive)
    games = chesszip.iter_games(path, threads=1, binary=True)
    assert next(games) == benchmark_lines[0].encode()
    assert sum(1 for _ in games) == len(benchmark_lines) - 1
    with open(path, "rb") as f:
        assert list(chesszip.iter_games(f)) == benchmark_lines
    assert list(chesszip.iter_games(str(path))) == benchmark_lines


def test_random_access(benchmark_archive: bytes, benchmark_lines: List[str]) -> None:
    a = chesszip.Archive(benchmark_archive)
    assert len(a) == 10_000 and a.format == "movetext"
    for n in [0, 9_999, 5_000, 4_999, 1, 999, 1_000, 3_456, 3_457, 0]:
        assert a[n] == benchmark_lines[n], n
    assert a[-1] == benchmark_lines[-1]
    assert a.game(17, binary=True) == benchmark_lines[17].encode()
    with pytest.raises(IndexError):
        a[10_000]
    with pytest.raises(IndexError):
        a[-10_001]
    assert chesszip.game(benchmark_archive, 1234) == benchmark_lines[1234]
    # Random access leaves iteration alone.
    games = a.games()
    assert next(games) == benchmark_lines[0]
    assert a[7_000] == benchmark_lines[7_000]
    assert next(games) == benchmark_lines[1]


def test_lines_cut_across_blocks() -> None:
    text = "".join(f"e4 e5 Nf3 Nc6 Bb5 a6 {'1-0' if i % 2 else '0-1'}\n" for i in range(50)) + "not a game, last, no line feed"
    lines = text.splitlines(keepends=True)
    archive = chesszip.compress(text.encode(), 1, block_lines=7)
    a = chesszip.Archive(archive)
    assert list(a) == lines
    assert [a[n] for n in reversed(range(len(lines)))] == lines[::-1]


def pgn_games(text: str) -> List[str]:
    """Split a lichess export at its first tag lines (the way chesszip cuts games)."""
    starts = [m.start() for m in re.finditer(r"^\[Site ", text, re.M)]
    return [text[s:e] for s, e in zip(starts, starts[1:] + [len(text)])]


def test_pgn_games(shared) -> None:
    text = shared("pgn/lichess/2017-05.pgn").read_text()
    expected = pgn_games(text)
    assert len(expected) == 298
    archive = chesszip.compress(text.encode(), block_lines=50)
    assert list(chesszip.iter_games(archive)) == expected
    a = chesszip.Archive(archive)
    assert a.format == "pgn"
    for n in [297, 3, 150, 0, 49, 50, 51, 297]:
        assert a[n] == expected[n], n
    with pytest.raises(IndexError):
        a[298]
    assert len(a) == 298


def test_chess_games_from_movetext(benchmark_archive: bytes, benchmark_lines: List[str]) -> None:
    games = chesszip.iter_chess_games(benchmark_archive)
    for line, game in zip(benchmark_lines[:300], games):
        *moves, result = line.split()
        assert game.headers["Result"] == result
        assert [m for m in game.mainline_moves()] == [m for m in game.mainline_moves()]
        board = game.board()
        for san, move in zip(moves, game.mainline_moves()):
            assert board.san(move).rstrip("+#") == san
            board.push(move)
        assert len(moves) == board.ply()
        assert not game.errors


def test_chess_games_from_pgn(shared) -> None:
    text = shared("pgn/lichess/2017-05.pgn").read_text()
    archive = chesszip.compress(text.encode(), 1)
    ours = list(chesszip.iter_chess_games(archive))
    theirs = []
    handle = io.StringIO(text)
    while (g := chess.pgn.read_game(handle)) is not None:
        theirs.append(g)
    assert len(ours) == len(theirs) == 298
    for a, b in zip(ours, theirs):
        assert dict(a.headers) == dict(b.headers)
        assert list(a.mainline_moves()) == list(b.mainline_moves())
    g = chesszip.chess_game(archive, 5)
    assert g.headers["Site"] == theirs[5].headers["Site"]
    assert chesszip.Archive(archive).chess_game(297).end().board().fen() == theirs[297].end().board().fen()
