"""The GIL is released while coding: other Python threads run, and thread pools scale."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import chesszip


def test_other_threads_run_while_compressing(benchmark_text: bytes) -> None:
    done = threading.Event()
    result = {}

    def work() -> None:
        result["archive"] = chesszip.compress(benchmark_text, 1, threads=1)
        done.set()

    t = threading.Thread(target=work)
    spins = 0
    t.start()
    started = time.perf_counter()
    while not done.is_set():
        spins += 1
    elapsed = time.perf_counter() - started
    t.join()
    # With the GIL held for the whole call, this loop would not run while compressing.
    assert elapsed > 0.01 and spins > 10_000, (elapsed, spins)
    assert chesszip.decompress(result["archive"]) == benchmark_text


def test_thread_pool_gives_the_same_archives(shared) -> None:
    texts = [shared(n).read_bytes() for n in ["heldout/lichess_heldout.txt", "notation/lichess_san_with_checks.txt", "pgn/lichess/2017-05.pgn"]]
    with ThreadPoolExecutor(3) as pool:
        archives = list(pool.map(lambda t: chesszip.compress(t, 1, threads=1), texts))
        back = list(pool.map(lambda a: b"".join(chesszip.iter_games(a, binary=True, threads=1)), archives))
    assert archives == [chesszip.compress(t, 1) for t in texts]
    assert back == texts
