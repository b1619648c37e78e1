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


#: Tag lines that are not ``[Name "value"]`` alone on a line: the tables found other tags in
#: them than ``read_tags`` and ``extract --tags`` (a regular expression of their own).
MALFORMED = (
    b'[Event "a" extra]\n[Site "s1"]\n\n1. e4 e5 1-0\n\n'
    b'[Event a]\n[Site "s2"]\n\n1. e4 e5 1-0\n\n'
    b'[Event "a]\n[Site "s3"]\n\n1. e4 1-0\n\n'
    b'[Event "a"] [Site "s4"]\n\n1. e4 1-0\n\n'
    b'[Event "a"]   \n[Site "s5"]\t\n\n1. e4 1-0\n\n'
    b'[Event "x"]\n[Event "y"]\n[Site "s6"]\n\n1. e4 1-0\n\n'
)


def table_tags(table: "object", names: List[str]) -> List[Dict[str, object]]:
    """Each row's tags (non-null columns among ``names``)."""
    rows = table.select(names).to_pylist()  # type: ignore[attr-defined]
    return [{k: v for k, v in row.items() if v is not None} for row in rows]


def typed(tags: Dict[str, str]) -> Dict[str, object]:
    """``read_tags``' strings as the tables type them (nulls for values that do not parse)."""
    from chesszip._table import DATE_TAGS, INT_TAGS, _date, _int

    out: Dict[str, object] = {}
    for k, v in tags.items():
        value = _int(v) if k in INT_TAGS else _date(v) if k in DATE_TAGS else v
        if value is not None and k != "Result":
            out[k] = value
    return out


def test_tables_read_the_tags_read_tags_reads(shared: Callable[[str], Path], tmp_path: Path, run_cli: Callable[..., object]) -> None:
    import pyarrow as pa

    import chesszip.dask as czd
    from chesszip._table import parse_game

    files = [
        ("malformed", b"\xef\xbb\xbf" + b'[Event "bom"]  \n[Site "s0"]\n\n1. d4 1-0\n\n' + MALFORMED),
        ("inlineTags", shared("pgn/edge-cases/scalachess/inlineTags.pgn").read_bytes()),
        ("syntactic-error-1", shared("pgn/edge-cases/kokopu/pgns__syntactic-error-1__database.pgn").read_bytes()),
        ("headers", shared("pgn/edge-cases/kokopu/pgns__headers__database.pgn").read_bytes()),
    ]
    for name, text in files:
        archive = chesszip.compress(text, 1, format="pgn")
        want = chesszip.read_tags(archive, errors="replace")
        games = [g for g in chesszip.iter_games(archive, binary=True)]
        assert len(games) == len(want), name
        names = list(dict.fromkeys(k for t in want for k in t if k != "Result"))
        table = chesszip.to_arrow(archive, tags=names, errors="replace")
        # A game with neither a tag nor a move nor a result gives no row.
        rows = [typed(t) for t, g in zip(want, games) if parse_game(g, "utf-8", "replace") is not None]
        assert table_tags(table, names) == rows, name
        path = tmp_path / f"{name}.chz"
        path.write_bytes(archive)
        frame = czd.read_table(str(path), tags=names, errors="replace").compute(scheduler="sync")
        assert table_tags(pa.Table.from_pandas(frame[names], preserve_index=False), names) == rows, name
    # The brief's cases, by name: what extract --tags prints.
    archive = chesszip.compress(files[0][1], 1)
    tags = chesszip.read_tags(archive)
    assert tags[1:] == [{"Event": "a", "Site": "s1"}, {}, {}, {"Event": "a", "Site": "s4"}, {"Event": "a", "Site": "s5"}, {"Event": "x", "Site": "s6"}]
    assert table_tags(chesszip.to_arrow(archive), ["Event", "Site"]) == tags
    path = tmp_path / "malformed.chz"
    path.write_bytes(archive)
    printed = run_cli("extract", path, "--tags").stdout  # type: ignore[attr-defined]
    assert printed.count(b"[Site ") == sum("Site" in t for t in tags)


def test_lines_of_a_movetext_archive_have_no_tags_in_tables() -> None:
    # A line of a movetext archive that looks like a tag pair is a raw line: read_tags gives it
    # no tags, and neither does a table (it gave an Event column).
    text = b"".join(b"e4 e5 Nf3 Nc6 Bb5 a6 1-0\n" for _ in range(50)) + b'[Event "x"]\n'
    archive = chesszip.compress(text, 1, format="movetext")
    assert chesszip.info(archive).format == "movetext"
    assert chesszip.read_tags(archive) == [{}] * 51
    table = chesszip.to_arrow(archive)
    assert "Event" not in table.column_names and table.num_rows == 51
