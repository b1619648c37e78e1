"""Tags without the moves: ``chesszip.read_tags`` against python-chess reading the same games."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable, Dict, List

import chess.pgn

import chesszip

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden"


def headers_of(text: str) -> List[Dict[str, str]]:
    """Every game's tags as python-chess reads them (``read_headers``), in order."""
    out = []
    stream = io.StringIO(text)
    while (headers := chess.pgn.read_headers(stream)) is not None:
        out.append(dict(headers))
    return out


def test_read_tags_equals_python_chess_headers(shared: Callable[[str], Path]) -> None:
    text = shared("pgn/lichess/2017-05.pgn").read_bytes()
    archive = chesszip.compress(text, 1, block_lines=100)
    tags = chesszip.read_tags(archive)
    assert len(tags) == 298 == chesszip.info(archive).games
    assert tags == headers_of(text.decode())
    assert tags[0]["Site"] == "https://lichess.org/poBFxODv" and tags[0]["Result"] == "1/2-1/2"


def test_read_tags_of_every_coding(tmp_path: Path) -> None:
    expected = headers_of((GOLDEN / "lichess.pgn").read_text())
    for name in ["lichess.pgn.l2.c5.chz", "lichess.pgn.l2.c4.chz", "lichess.pgn.l1.chz"]:
        path = tmp_path / name
        path.write_bytes((GOLDEN / name).read_bytes())
        assert chesszip.read_tags(path, threads=1) == expected, name
        assert chesszip.read_tags(str(path)) == expected, name
        with chesszip.Archive(path) as a:
            assert a.tags() == expected, name
