"""Measures chesszip.dask on a LocalCluster of 1 and 2 worker processes, and the tables
against python-chess (docs/notes-dask.md has the numbers and the commands).

    python bench_dask.py read A.chz B.chz ...      # read_games / read_table, 1 vs 2 workers
    python bench_dask.py write TEXT               # chesszip.dask.compress, 1 vs 2 workers
    python bench_dask.py table GAMES.pgn          # to_arrow vs python-chess's read_game loop
"""

from __future__ import annotations

import io
import os
import resource
import sys
import tempfile
import time

import chesszip
import chesszip.dask as czd


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cluster(n: int):
    from distributed import Client, LocalCluster

    c = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(c)
    client.run(lambda: __import__("chesszip.dask"))
    return c, client


def read(paths) -> None:
    games = sum(len(chesszip.Archive(p)) for p in paths)
    for threads in (1, 2):
        t = time.perf_counter()
        n = sum(1 for p in paths for _ in chesszip.iter_games(p, binary=True, threads=threads))
        dt = time.perf_counter() - t
        print(f"chesszip.iter_games alone, threads={threads}: {n} games in {dt:.2f} s: {n / dt:,.0f} games/s")
    for workers in (1, 2):
        c, client = cluster(workers)
        try:
            bag = czd.read_games(paths)
            t = time.perf_counter()
            n = bag.count().compute()
            dt = time.perf_counter() - t
            assert n == games
            rss = max(client.run(peak_rss_mib).values())
            print(f"read_games, {workers} worker(s): {bag.npartitions} partitions, {n} games in {dt:.2f} s: {n / dt:,.0f} games/s; peak RSS per worker {rss:.0f} MiB")
            df = czd.read_table(paths, moves="movetext")
            t = time.perf_counter()
            rows = len(df)
            dt = time.perf_counter() - t
            print(f"read_table (movetext), {workers} worker(s): {rows} rows in {dt:.2f} s: {rows / dt:,.0f} games/s")
        finally:
            client.close()
            c.close()


def write(src: str) -> None:
    size = os.path.getsize(src)
    for workers in (1, 2):
        c, client = cluster(workers)
        try:
            with tempfile.TemporaryDirectory() as d:
                dst = os.path.join(d, "out.chz")
                t = time.perf_counter()
                r = czd.compress(src, dst, shard_games=2000, level=1, client=client)
                dt = time.perf_counter() - t
                games = len(chesszip.Archive(dst))
                rss = max(client.run(peak_rss_mib).values())
                print(
                    f"compress, {workers} worker(s): {r['shards']} shards, {games} games, {size / 1e6:.1f} MB in {dt:.2f} s: "
                    f"{games / dt:,.0f} games/s, {size / dt / 1e6:.2f} MB/s; {r['archive_bytes']:,} bytes; peak RSS per worker {rss:.0f} MiB"
                )
        finally:
            client.close()
            c.close()


def table(pgn_path: str) -> None:
    import chess.pgn

    from chesszip._table import table_of_games

    text = open(pgn_path, "rb").read()
    archive = chesszip.compress(text, 1)
    t = time.perf_counter()
    tbl = chesszip.to_arrow(archive, threads=1)
    dt = time.perf_counter() - t
    print(f"chesszip.to_arrow (decode + parse, SAN lists), threads=1: {tbl.num_rows} games in {dt:.2f} s: {tbl.num_rows / dt:,.0f} games/s")
    games = list(chesszip.iter_games(archive, binary=True))
    t = time.perf_counter()
    tbl = table_of_games(games)
    dt = time.perf_counter() - t
    print(f"  of which parsing the texts into the table: {tbl.num_rows / dt:,.0f} games/s")
    t = time.perf_counter()
    stream = io.StringIO(text.decode())
    n = 0
    while chess.pgn.read_game(stream) is not None:
        n += 1
    dt = time.perf_counter() - t
    print(f"python-chess read_game loop over the PGN: {n} games in {dt:.2f} s: {n / dt:,.0f} games/s")
    t = time.perf_counter()
    stream = io.StringIO(text.decode())
    n = 0
    while chess.pgn.read_headers(stream) is not None:
        n += 1
    dt = time.perf_counter() - t
    print(f"python-chess read_headers loop over the PGN: {n} games in {dt:.2f} s: {n / dt:,.0f} games/s")


if __name__ == "__main__":
    what, args = sys.argv[1], sys.argv[2:]
    {"read": lambda: read(args), "write": lambda: write(args[0]), "table": lambda: table(args[0])}[what]()
