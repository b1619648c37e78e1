"""Fills every rating row of a network whose rating rows were trained on the games sampled from
the teacher (docs/notes-ratings.md; the rows: src/model/network/inputs.rs, `rating_inputs`).

The sampled games have one Elo for both sides, on the teacher's grid 1100, 1300, ..., 2100, and
no time control, so training (`train.py --train-rows 977`) moves only the rows of the grid's
buckets (mover's and opponent's) and the "unknown speed" row. This script writes a checkpoint
whose rows cover every rating:

- the row of rating bucket k (ratings 800 + 100 k ..= 899 + 100 k) is the trained rows
  interpolated linearly at the teacher Elo `clamp(850 + 100 k - offset, 1100, 2100)`, for the
  mover's rows and the opponent's alike: a rating above 2100 + offset uses the 2100 row (the
  teacher's grid ends there), and `offset` (Elo points) says how far a lichess rating sits above
  the teacher's Elo input of the same play (model version 10 found 150 for bullet; chosen on the
  training file 2016-05.pgn, never on the files the issue reports);
- every speed row is the trained unknown-speed row (the sampled games trained only that one, and
  it holds the part that every Elo shares).

    python3 fill_ratings.py r2.pt --offset 150 --out r2f.pt && python3 export.py r2f.pt --out v11
"""

import argparse

import torch

from model import BOARD_INPUTS, SPEEDS
from model import RATING_BUCKETS as BUCKETS
GRID = list(range(1100, 2101, 200))


def bucket(rating):
    return (min(max(rating, 800), 2799) - 800) // 100


def fill(w1, offset):
    """`w1` (inputs x h1) with its rating rows filled as the module says."""
    w = w1.clone()
    for first in (BOARD_INPUTS, BOARD_INPUTS + BUCKETS):
        trained = torch.stack([w1[first + bucket(e)] for e in GRID])
        for k in range(BUCKETS):
            e = min(max(850 + 100 * k - offset, GRID[0]), GRID[-1])
            i = min(int((e - GRID[0]) // 200), len(GRID) - 2)
            t = (e - GRID[i]) / 200.0
            w[first + k] = (1.0 - t) * trained[i] + t * trained[i + 1]
    unknown = w1[BOARD_INPUTS + 2 * BUCKETS]
    for s in range(SPEEDS):
        w[BOARD_INPUTS + 2 * BUCKETS + s] = unknown
    return w


def clamp_rows(w1, lo, hi):
    """`w1` with the rows of the mover's and the opponent's rating buckets below `lo` set to
    bucket `lo`'s and above `hi` to bucket `hi`'s: buckets with too few training games take their
    nearest well-trained neighbour's row instead of a row fitted to a handful of players."""
    w = w1.clone()
    for first in (BOARD_INPUTS, BOARD_INPUTS + BUCKETS):
        for k in range(BUCKETS):
            w[first + k] = w1[first + min(max(k, lo), hi)]
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--offset", type=int, default=150, help="a lichess rating minus the teacher Elo of the same play")
    ap.add_argument("--clamp", type=int, nargs=2, metavar=("LO", "HI"), help="instead of the teacher grid: rows of rating buckets outside LO..HI copy LO's or HI's (rows trained on rated games, --mover-rated)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    ck = torch.load(args.checkpoint, map_location="cpu")
    w1 = ck["state"]["w1.weight"]
    assert w1.shape[0] == BOARD_INPUTS + 2 * BUCKETS + SPEEDS, f"{w1.shape[0]} inputs: not a network with rating rows"
    if args.clamp:
        lo, hi = args.clamp
        ck["state"]["w1.weight"] = clamp_rows(w1, lo, hi)
        ck["filled"] = {"clamp": [lo, hi]}
        print(f"wrote {args.out}: rating buckets outside {lo}..{hi} copy the nearest of the two")
    else:
        ck["state"]["w1.weight"] = fill(w1, args.offset)
        ck["filled"] = {"offset": args.offset}
        print(f"wrote {args.out}: rating rows filled from the teacher grid {GRID[0]}..{GRID[-1]}, offset {args.offset}")
    torch.save(ck, args.out)


if __name__ == "__main__":
    main()
