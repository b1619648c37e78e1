"""The table of :func:`chesszip.to_arrow` in DuckDB and Polars, as analysts use it: counts
and averages by SQL and by Polars expressions equal python-chess's reading of the same real
lichess games (``../shared/data/pgn/lichess/2017-05.pgn``)."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Callable

import chess.pgn
import duckdb
import polars as pl

import chesszip


def headers(pgn: bytes) -> list:
    stream = io.StringIO(pgn.decode())
    out = []
    while (h := chess.pgn.read_headers(stream)) is not None:
        out.append(h)
    return out


def test_duckdb_and_polars_read_the_table_as_python_chess_reads_the_pgn(shared: Callable[[str], Path]) -> None:
    pgn = shared("pgn/lichess/2017-05.pgn").read_bytes()
    games_table = chesszip.to_arrow(chesszip.compress(pgn, 1))
    games = headers(pgn)
    assert games_table.num_rows == len(games) > 200

    # DuckDB scans the Arrow table in place.
    by_result = dict(duckdb.sql("select result, count(*) from games_table group by result").fetchall())
    assert by_result == dict(Counter(g["Result"] for g in games))
    (strong,) = duckdb.sql("select count(*), sum(WhiteElo) from games_table where WhiteElo >= 1800").fetchall()
    elos = [int(g["WhiteElo"]) for g in games if int(g["WhiteElo"]) >= 1800]
    assert strong == (len(elos), sum(elos))

    # Polars takes it without a copy of the columns' meaning: Elo as integers, dates as dates.
    df = pl.from_arrow(games_table)
    assert df.schema["WhiteElo"] == pl.Int64 and df.schema["Date"] == pl.Date
    by_termination = dict(df.group_by("Termination").len().iter_rows())
    assert by_termination == dict(Counter(g["Termination"] for g in games))
    assert df["Site"].to_list() == [g["Site"] for g in games]
