"""A lichess month on a Dask cluster: from the `.pgn.zst` to one archive, and back to a
DataFrame (the README's recipe, measured; docs/notes-dask.md has the numbers).

    python lichess_month.py make SRC.pgn COPIES OUT.pgn.zst   # a large .pgn.zst from a real sample
    python lichess_month.py run IN.pgn.zst OUT.chz [WORKERS]  # compress on the cluster, read back

`make` writes COPIES copies of SRC's games with every `Site` game id made unique per copy, so
that no game repeats byte for byte (chesszip codes a repeated game as a reference, which would
make throughput look better than it is); sizes should be quoted on the distinct games of SRC.
`run` compresses IN on a LocalCluster of WORKERS worker processes (default 2), counts the games
of the archive from its index, reads it back as a DataFrame and checks the row count.
"""

from __future__ import annotations

import os
import re
import resource
import sys
import time


def make(src: str, copies: int, out: str) -> None:
    import subprocess

    text = open(src, "rb").read()
    site = re.compile(rb'\[Site "https://lichess\.org/([A-Za-z0-9]{8})"\]')
    with subprocess.Popen(["zstd", "-3", "-T2", "-q", "-f", "-o", out], stdin=subprocess.PIPE) as z:
        for i in range(copies):
            tag = f"{i:06d}".encode()
            # The id keeps its 8 characters: its first 6 become the copy's number.
            z.stdin.write(site.sub(lambda m: b'[Site "https://lichess.org/' + tag + m.group(1)[6:] + b'"]', text))
        z.stdin.close()
    print(f"{out}: {copies} copies of {src} ({len(text) * copies / 1e9:.2f} GB of PGN), {os.path.getsize(out) / 1e6:.1f} MB")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(src: str, dst: str, workers: int) -> None:
    from distributed import Client, LocalCluster

    import chesszip
    import chesszip.dask as czd

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(cluster)
    try:
        t = time.perf_counter()
        r = czd.compress(src, dst, shard_games=20_000, client=client)
        dt = time.perf_counter() - t
        archive = chesszip.Archive(dst)
        games = len(archive)
        rss = max(client.run(peak_rss_mib).values())
        print(
            f"compress: {r['shards']} shards, {games:,} games in {dt:.1f} s: {games / dt:,.0f} games/s"
            + f", {r['text_bytes'] / dt / 1e6:.1f} MB/s of PGN"
            + f"; {os.path.getsize(dst):,} archive bytes; peak RSS per worker {rss:.0f} MiB"
        )
        t = time.perf_counter()
        df = czd.read_table(dst, moves="movetext")
        rows = len(df)
        dt = time.perf_counter() - t
        rss = max(client.run(peak_rss_mib).values())
        print(f"read_table: {rows:,} rows in {dt:.1f} s: {rows / dt:,.0f} games/s; peak RSS per worker {rss:.0f} MiB")
        assert rows == games, (rows, games)
        last = df.partitions[df.npartitions - 1].compute().iloc[-1]
        print(f"last game: {last['White']} - {last['Black']}, {last['result']}, {last['plies']} plies")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    what, args = sys.argv[1], sys.argv[2:]
    if what == "make":
        make(args[0], int(args[1]), args[2])
    else:
        run(args[0], args[1], int(args[2]) if len(args) > 2 else 2)
