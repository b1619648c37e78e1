"""Regression tests for two bugs of the game views found in a new user's review.

- A UTF-8 BOM at the start of a PGN file made a "game" of its own (the BOM and the first tag
  line), so every game number was one off: game 1 is the BOM's game, with all its tags.
- An integer tag (``WhiteElo``...) beyond int64 made ``to_pandas``/``to_arrow``/
  ``chesszip.dask.read_table`` raise ``OverflowError``: it is null, as a value that does not
  parse; so are ``"1_500"`` and ``" 1500 "``, which Python's ``int()`` would take.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable

import chess.pgn
import pytest

import chesszip
import chesszip.dask as czd
from chesszip import _native
from chesszip._table import _int

BOM = b"\xef\xbb\xbf"
LICHESS = "pgn/lichess/exports-2021/lichess_manwithavan_2021-07-25.pgn"


def python_chess_headers(text: bytes) -> list:
    stream, out = io.StringIO(text.decode("utf-8-sig")), []
    while (h := chess.pgn.read_headers(stream)) is not None:
        out.append(dict(h))
    return out


@pytest.fixture(scope="module")
def bom_pgn(shared: Callable[[str], Path]) -> bytes:
    plain = shared(LICHESS).read_bytes()
    assert not plain.startswith(BOM)
    return BOM + plain


def test_a_bom_belongs_to_game_one(bom_pgn: bytes, tmp_path: Path) -> None:
    headers = python_chess_headers(bom_pgn)
    assert len(headers) == 289
    archive = chesszip.compress(bom_pgn, 1)
    games = list(chesszip.iter_games(archive, binary=True))
    assert len(games) == 289 and b"".join(games) == bom_pgn
    assert games[0].startswith(BOM + b'[Event "Titled Arena April \'20"]\n[Site ')
    with chesszip.Archive(archive) as a:
        assert len(a) == 289
        assert a[0].encode() == games[0] and a[1].encode() == games[1] and a[288].encode() == games[288]
        assert [dict(t) for t in a.tags()] == headers
    assert [dict(t) for t in chesszip.read_tags(archive)] == headers
    df = chesszip.to_pandas(archive)
    assert len(df) == 289
    assert df["Event"].tolist() == [h["Event"] for h in headers]
    assert df["Site"].tolist() == [h["Site"] for h in headers]
    assert df["WhiteElo"].tolist() == [int(h["WhiteElo"]) for h in headers]
    # Dask: one partition per block, the first block's games cut as iter_games cuts them.
    path = tmp_path / "bom.chz"
    path.write_bytes(_native.compress(bom_pgn, 1, block_bytes=4096))
    parts = [_native.block_games(str(path), k) for _, k, _ in _native.block_list(str(path))]
    assert [g for p in parts for g in p] == games
    t = czd.read_table(str(path)).compute(scheduler="sync")
    assert len(t) == 289 and t["Event"].tolist() == [h["Event"] for h in headers]


def test_an_integer_tag_beyond_int64_is_null(shared: Callable[[str], Path], tmp_path: Path) -> None:
    archive = chesszip.compress(b'[Event "x"]\n[WhiteElo "99999999999999999999"]\n[Result "*"]\n\n1. e4 *\n\n')
    df = chesszip.to_pandas(archive)
    assert df["WhiteElo"].tolist() == [None] or df["WhiteElo"].isna().all()
    text = shared("pgn/edge-cases/kokopu/pgns__headers__database.pgn").read_bytes()
    archive = chesszip.compress(text, 1)
    elo = chesszip.to_arrow(archive).column("BlackElo").to_pylist()
    assert 2530 in elo and None in elo
    # The game with the 300-digit BlackElo (and WhiteElo "not a number") on its own.
    (big,) = [g for g in chesszip.iter_games(archive, binary=True) if b"9" * 100 in g]
    t = chesszip.to_arrow(chesszip.compress(big, 1))
    assert t.column("BlackElo").to_pylist() == [None] and t.column("WhiteElo").to_pylist() == [None]
    path = tmp_path / "kokopu.chz"
    path.write_bytes(archive)
    df = czd.read_table(str(path)).compute(scheduler="sync")
    assert df["BlackElo"].isna().sum() >= 1 and 2530 in df["BlackElo"].dropna().tolist()


@pytest.mark.parametrize(
    "value, want",
    [
        ("1500", 1500),
        ("+12", 12),
        ("-3", -3),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("9223372036854775808", None),
        ("-9223372036854775809", None),
        ("0000000000000000000001500", 1500),
        ("9" * 5000, None),
        ("1_500", None),
        (" 1500 ", None),
        ("1500\n", None),
        ("\u0661\u0665\u0660\u0660", None),
        ("", None),
        ("?", None),
        ("+", None),
    ],
)
def test_integer_tags_are_plain_ascii_digits(value: str, want: object) -> None:
    assert _int(value) == want
