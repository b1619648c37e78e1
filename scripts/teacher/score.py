"""The teacher's own cost on labelled games: bits per ply of the moves played (among the legal
moves) and how often the played move is its most probable, from label.py shards.

usage: python score.py SHARD.npz [SHARD.npz ...]
"""

import math
import sys

import numpy as np


def main():
    logp, top1 = [], []
    for path in sys.argv[1:]:
        d = np.load(path)
        first = np.concatenate([[0], np.cumsum(d["ncand"], dtype=np.int64)[:-1]]).astype(np.int64)
        logp.append(d["logp"].astype(np.float64))
        top1.append(d["cand"][first] == d["played"])
    logp, top1 = np.concatenate(logp), np.concatenate(top1)
    print(f"{len(sys.argv) - 1} shards, {len(logp)} plies: {-logp.mean() / math.log(2):.4f} bits/ply, top-1 {top1.mean():.4f}")


if __name__ == "__main__":
    main()
