"""chesszip.dask and the tables (chesszip.to_arrow/to_pandas) on a real dask.distributed
LocalCluster of 2 worker processes, on real games from ../shared/data.

Archives are written with small blocks so that the games of each block, decoded alone on a
worker, must join up exactly: partitions == blocks, joined == the input byte for byte, and
the same games as :func:`chesszip.iter_games`.
"""

from __future__ import annotations

import datetime
import gzip
import io
import os
from pathlib import Path
from typing import Callable, Iterator, List

import pytest

import chesszip

import chess.pgn
import pandas as pd
import pyarrow as pa
import zstandard
from distributed import Client, LocalCluster

import chesszip.dask as czd
from chesszip import _native


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A LocalCluster of 2 worker processes with 1 thread each."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def movetext(shared: Callable[[str], Path]) -> bytes:
    """The first 300 lines of the benchmark's games."""
    with open(shared("Chess_Games.txt"), "rb") as f:
        return b"".join(f.readline() for _ in range(300))


@pytest.fixture(scope="module")
def pgn(shared: Callable[[str], Path]) -> bytes:
    """A lichess month's sample (298 games with clock comments)."""
    return shared("pgn/lichess/2017-05.pgn").read_bytes()


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory, movetext: bytes, pgn: bytes) -> dict:
    d = tmp_path_factory.mktemp("dask")
    out = {}
    for name, text, lines in [("movetext", movetext, 37), ("pgn", pgn, 23)]:
        p = d / f"{name}.chz"
        p.write_bytes(chesszip.compress(text, 1, block_lines=lines))
        out[name] = p
    return out


def test_read_games_round_trip_one_partition_per_block(client: Client, archives: dict, movetext: bytes, pgn: bytes) -> None:
    for name, text in [("movetext", movetext), ("pgn", pgn)]:
        path = archives[name]
        bag = czd.read_games(str(path))
        assert bag.npartitions == chesszip.info(path).blocks > 5
        games = bag.compute()
        assert "".join(games).encode() == text, name
        assert games == list(chesszip.iter_games(path)), name
        # Each partition is one block's games, computed on the workers.
        sizes = bag.map_partitions(lambda p: [len(p)]).compute()
        assert sum(sizes) == len(games) and max(sizes) <= (37 if name == "movetext" else 23) + 1


def test_read_games_many_archives_and_concatenation(client: Client, archives: dict, movetext: bytes, pgn: bytes, tmp_path: Path) -> None:
    both = czd.read_games([archives["movetext"], archives["pgn"]])
    assert both.npartitions == chesszip.info(archives["movetext"]).blocks + chesszip.info(archives["pgn"]).blocks
    assert "".join(both.compute()).encode() == movetext + pgn
    cat = tmp_path / "cat.chz"
    cat.write_bytes(archives["pgn"].read_bytes() + archives["movetext"].read_bytes() + archives["pgn"].read_bytes())
    bag = czd.read_games(cat, binary=True)
    assert bag.npartitions == 2 * chesszip.info(archives["pgn"]).blocks + chesszip.info(archives["movetext"]).blocks
    assert {m for _, m, _ in czd.blocks(cat)} == {0, 1, 2}
    assert b"".join(bag.compute()) == pgn + movetext + pgn
    # A glob reads the matching archives in sorted order.
    assert "".join(czd.read_games(str(archives["pgn"].parent / "*.chz")).compute()).encode() == movetext + pgn


def test_read_games_as_chess(client: Client, archives: dict, pgn: bytes) -> None:
    games = czd.read_games(archives["pgn"], as_chess=True).compute()
    expected = []
    stream = io.StringIO(pgn.decode())
    while (g := chess.pgn.read_game(stream)) is not None:
        expected.append(g)
    assert len(games) == len(expected) == 298
    for a, b in zip(games, expected):
        assert dict(a.headers) == dict(b.headers)
        assert [m.uci() for m in a.mainline_moves()] == [m.uci() for m in b.mainline_moves()]


def python_chess_rows(pgn: bytes) -> List[dict]:
    """The rows python-chess reads from the PGN, for comparison."""
    rows = []
    stream = io.StringIO(pgn.decode())
    while (g := chess.pgn.read_game(stream)) is not None:
        board = g.board()
        sans = []
        for m in g.mainline_moves():
            sans.append(board.san(m))
            board.push(m)
        rows.append({"headers": dict(g.headers), "moves": sans})
    return rows


def test_read_table_rows_equal_python_chess(client: Client, archives: dict, pgn: bytes) -> None:
    df = czd.read_table(archives["pgn"])
    assert df.npartitions == chesszip.info(archives["pgn"]).blocks
    assert str(df["WhiteElo"].dtype) == "int64[pyarrow]"
    assert str(df["Date"].dtype) == "date32[day][pyarrow]"
    assert str(df["White"].dtype) == "string[pyarrow]"
    assert str(df["plies"].dtype) == "int64[pyarrow]"
    got = df.compute()
    rows = python_chess_rows(pgn)
    assert len(got) == len(rows) == 298
    for (_, r), e in zip(got.iterrows(), rows):
        h = e["headers"]
        assert r["White"] == h["White"] and r["Site"] == h["Site"]
        assert r["WhiteElo"] == int(h["WhiteElo"]) and r["BlackElo"] == int(h["BlackElo"])
        assert r["Date"] == datetime.date(*map(int, h["Date"].split(".")))
        assert r["result"] == h["Result"]
        assert list(r["moves"]) == e["moves"]
        assert r["plies"] == len(e["moves"])
    # Filtering and counting on the cluster.
    assert int((df["WhiteElo"] > 2000).sum().compute()) == sum(int(e["headers"]["WhiteElo"]) > 2000 for e in rows)


def test_read_table_movetext(client: Client, archives: dict, movetext: bytes) -> None:
    df = czd.read_table(archives["movetext"], moves="movetext").compute()
    lines = movetext.decode().splitlines()
    assert list(df.columns) == ["movetext", "plies", "result"]
    assert len(df) == 300
    assert list(df["movetext"]) == [line.strip() for line in lines]
    assert list(df["plies"]) == [len(line.split()) - 1 for line in lines]
    assert list(df["result"]) == [line.split()[-1] for line in lines]


def test_compress_expands_to_the_input(client: Client, movetext: bytes, pgn: bytes, tmp_path: Path) -> None:
    for name, text, shard in [("movetext", movetext, 70), ("pgn", pgn, 50)]:
        src = tmp_path / f"{name}.txt"
        src.write_bytes(text)
        dst = tmp_path / f"{name}.chz"
        r = czd.compress(src, dst, shard_games=shard, level=1)
        assert r["format"] == name and r["shards"] == -(-{"movetext": 300, "pgn": 298}[name] // shard)
        archive = dst.read_bytes()
        assert chesszip.decompress(archive) == text
        assert chesszip.info(dst).members == r["shards"]
        assert len(chesszip.Archive(dst)) == {"movetext": 300, "pgn": 298}[name]
        if name == "movetext":
            # The first member is the archive chesszip.compress makes of the first shard.
            assert archive.startswith(chesszip.compress(b"".join(text.splitlines(keepends=True)[:shard]), 1))


def test_compress_of_pgn_zst_and_gz_streams(client: Client, pgn: bytes, tmp_path: Path) -> None:
    zst = tmp_path / "2017-05.pgn.zst"
    zst.write_bytes(zstandard.ZstdCompressor(level=3).compress(pgn))
    gz = tmp_path / "2017-05.pgn.gz"
    gz.write_bytes(gzip.compress(pgn))
    for src in [zst, gz]:
        dst = tmp_path / (src.name + ".chz")
        r = czd.compress(src, dst, shard_games=100, level=1)
        assert (r["format"], r["shards"], r["text_bytes"]) == ("pgn", 3, len(pgn))
        assert chesszip.decompress(dst.read_bytes()) == pgn
        assert "".join(czd.read_games(dst).compute()).encode() == pgn


def test_compress_into_a_folder_then_read_back(client: Client, pgn: bytes, tmp_path: Path) -> None:
    out = tmp_path / "parts"
    out.mkdir()
    r = czd.compress(pgn, out, shard_games=120, level=1)
    assert [Path(p).name for p in r["paths"]] == ["part-00000.chz", "part-00001.chz", "part-00002.chz"]
    assert "".join(czd.read_games(str(out / "part-*.chz")).compute()).encode() == pgn


def test_compress_without_a_cluster_is_the_same_archive(movetext: bytes, tmp_path: Path) -> None:
    a, b = tmp_path / "a.chz", tmp_path / "b.chz"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, Client(cluster) as c:
        czd.compress(movetext, a, shard_games=100, level=1, client=c)
    czd.compress(movetext, b, shard_games=100, level=1, client=None, scheduler="threads")
    assert a.read_bytes() == b.read_bytes()
    assert chesszip.decompress(b.read_bytes()) == movetext


def test_to_arrow_typed_columns(archives: dict, pgn: bytes) -> None:
    t = chesszip.to_arrow(archives["pgn"])
    assert isinstance(t, pa.Table) and t.num_rows == 298
    s = t.schema
    assert s.field("WhiteElo").type == pa.int64() and s.field("PlyCount").type == pa.int64()
    assert s.field("Date").type == pa.date32()
    assert s.field("Termination").type == pa.string()
    assert s.field("moves").type == pa.list_(pa.string())
    assert "Result" not in s.names and s.field("result").type == pa.string()
    rows = python_chess_rows(pgn)
    assert t.column("moves").to_pylist() == [e["moves"] for e in rows]
    assert t.column("PlyCount").to_pylist() == [int(e["headers"]["PlyCount"]) for e in rows] == t.column("plies").to_pylist()
    # From an Archive, as pandas with nullable integer columns.
    with chesszip.Archive(archives["pgn"]) as a:
        df = chesszip.to_pandas(a, moves="movetext")
    assert isinstance(df, pd.DataFrame) and str(df["BlackElo"].dtype) == "int64[pyarrow]"
    assert df["movetext"].iloc[0].startswith("1. e3 { [%clk 0:15:00] } d5")


def test_to_arrow_unparsed_values_are_null() -> None:
    text = b'[Event "x"]\n[Date "2017.??.??"]\n[WhiteElo "?"]\n[Result "*"]\n\n1. e4 (1. d4 d5) e5 $1 2. Nf3!? {hi} *\n\n'
    archive = chesszip.compress(text + b'[Event "y"]\n[WhiteElo "1500"]\n\n1. d4 1-0\n', 1)
    t = chesszip.to_arrow(archive)
    assert t.column("Date").to_pylist() == [None, None]
    assert t.column("WhiteElo").to_pylist() == [None, 1500]
    assert t.column("moves").to_pylist() == [["e4", "e5", "Nf3"], ["d4"]]
    assert t.column("result").to_pylist() == ["*", "1-0"]


def first_pgn_games(pgn: bytes, n: int) -> bytes:
    """The text of the first ``n`` games of a lichess PGN (each ends with a blank line)."""
    parts = pgn.split(b"\n\n[")
    return b"\n\n[".join(parts[:n]) + b"\n\n"


@pytest.mark.parametrize("name", ["movetext", "pgn"])
def test_blocks_cut_inside_lines_and_games(name: str, movetext: bytes, pgn: bytes) -> None:
    """Blocks far smaller than a game (so cut inside lines and games, with lines in pieces):
    every game is whole in the partition of the block its first byte is in."""
    text, block_bytes = (b"".join(movetext.splitlines(keepends=True)[:60]), 97) if name == "movetext" else (first_pgn_games(pgn, 40), 613)
    archive = _native.compress(text, 1, block_bytes=block_bytes)
    blocks = _native.block_list(archive)
    expected = list(chesszip.iter_games(archive, binary=True))
    assert len(blocks) > len(expected) > 30
    parts = [_native.block_games(archive, k) for _, k, _ in blocks]
    assert [g for p in parts for g in p] == expected
    assert b"".join(b"".join(p) for p in parts) == text
    assert sum(1 for p in parts if not p) > 0
    with pytest.raises(IndexError):
        _native.block_games(archive, len(blocks))
    # The same in a concatenation, after a member of the other format.
    other = chesszip.compress(movetext if name == "pgn" else pgn, 1)
    both = other + archive
    n = len(_native.block_list(other))
    assert [g for _, k, _ in _native.block_list(both)[n:] for g in _native.block_games(both, k)] == expected


def test_compress_refuses_what_the_cli_refuses_unless_force(movetext: bytes, tmp_path: Path) -> None:
    src = tmp_path / "games.txt"
    src.write_bytes(movetext)
    dst = tmp_path / "games.txt.chz"
    czd.compress(src, dst, shard_games=100, level=1, scheduler="sync")
    archive = dst.read_bytes()
    # A .chz input is skipped by the command line without -f: here a ValueError, nothing written.
    again = tmp_path / "again.chz"
    with pytest.raises(ValueError, match="already has the .chz suffix"):
        czd.compress(dst, again, level=1, scheduler="sync")
    assert not again.exists()
    r = czd.compress(dst, again, level=1, scheduler="sync", force=True)
    assert r["text_bytes"] == len(archive) and chesszip.decompress(again.read_bytes()) == archive
    # An existing destination is kept (FileExistsError) unless force=True.
    dst.write_bytes(b"keep me")
    with pytest.raises(FileExistsError, match="force=True"):
        czd.compress(src, dst, shard_games=100, level=1, scheduler="sync")
    assert dst.read_bytes() == b"keep me"
    czd.compress(src, dst, shard_games=100, level=1, scheduler="sync", force=True)
    assert dst.read_bytes() == archive
    # The input itself is never the output, even with force.
    with pytest.raises(ValueError, match="overwrite the input"):
        czd.compress(src, src, level=1, scheduler="sync", force=True)
    assert src.read_bytes() == movetext
    # A device is written in place, as by the command line.
    czd.compress(src, os.devnull, level=1, scheduler="sync")


def test_compress_into_a_folder_with_parts_needs_force(movetext: bytes, tmp_path: Path) -> None:
    out = tmp_path / "parts"
    out.mkdir()
    r = czd.compress(movetext, out, shard_games=100, level=1, scheduler="sync")
    assert len(r["paths"]) == 3
    with pytest.raises(FileExistsError, match="part-"):
        czd.compress(movetext[: len(movetext) // 2], out, shard_games=100, level=1, scheduler="sync")
    # With force the parts are replaced and those past the new last one removed: the folder's
    # parts are this input.
    half = b"".join(movetext.splitlines(keepends=True)[:150])
    r = czd.compress(half, out, shard_games=100, level=1, scheduler="sync", force=True)
    assert sorted(p.name for p in out.iterdir()) == ["part-00000.chz", "part-00001.chz"] == [Path(p).name for p in r["paths"]]
    assert "".join(czd.read_games(str(out / "part-*.chz")).compute(scheduler="sync")).encode() == half


def _fail_after(shards: int) -> Callable[..., bytes]:
    """A stand-in for ``_compress_shard`` that compresses ``shards`` shards at level 1, then
    raises ``OSError("disk full")``."""
    calls: list = []

    def failing(shard: bytes, *args: object) -> bytes:
        calls.append(1)
        if len(calls) > shards:
            raise OSError("disk full")
        return _native.compress(shard, 1)

    return failing


def test_compress_failure_leaves_no_partial_archive(movetext: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(czd, "_compress_shard", _fail_after(1))
    dst = tmp_path / "out.chz"
    with pytest.raises(OSError, match="disk full"):
        czd.compress(movetext, dst, shard_games=100, level=1, scheduler="sync", in_flight=1)
    assert not dst.exists()


def test_compress_failure_with_force_keeps_the_older_archive_and_parts(
    movetext: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # force=True replaces dst only once the whole input is compressed (as the CLI's -f, through
    # a temporary file): a failure left no archive at all where an older one was, and in a
    # folder the older parts past those rewritten, which part-*.chz read as a shorter input.
    dst = tmp_path / "out.chz"
    czd.compress(movetext, dst, shard_games=100, level=1, scheduler="sync")
    old = dst.read_bytes()
    parts = tmp_path / "parts"
    parts.mkdir()
    czd.compress(movetext, parts, shard_games=100, level=1, scheduler="sync")
    old_parts = {p.name: p.read_bytes() for p in parts.iterdir()}
    assert len(old_parts) == 3
    monkeypatch.setattr(czd, "_compress_shard", _fail_after(2))
    with pytest.raises(OSError, match="disk full"):
        czd.compress(movetext, dst, shard_games=100, level=1, scheduler="sync", in_flight=1, force=True)
    assert dst.read_bytes() == old
    monkeypatch.setattr(czd, "_compress_shard", _fail_after(2))
    with pytest.raises(OSError, match="disk full"):
        czd.compress(movetext, parts, shard_games=100, level=1, scheduler="sync", in_flight=1, force=True)
    assert {p.name: p.read_bytes() for p in parts.iterdir()} == old_parts
    # No temporary file is left behind either.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.chz", "parts"]


def test_compress_error_names_the_target_not_a_temporary_file(movetext: bytes, tmp_path: Path) -> None:
    dst = tmp_path / "missing" / "out.chz"
    with pytest.raises(FileNotFoundError) as e:
        czd.compress(movetext[:1000], dst, level=1, scheduler="sync")
    assert e.value.filename == str(dst) and ".tmp" not in str(e.value)
