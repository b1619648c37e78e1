"""Adds the players' rating inputs to an export made without them: what `tune export --ratings`
writes, done in Python (a stand-in until the Rust side has it, and a cross-check of it after).

    python3 scripts/net/rate_export.py EXPORT GAMES.txt GAMES.ratings --out RATED

EXPORT is `tune export`'s folder of the movetext file GAMES.txt (one game per line, every line a
game), GAMES.ratings its ratings file (`pgn_ratings.py`, `elo_ratings.py`: `WHITE BLACK
TIMECONTROL` per game). RATED gets the same files, with each ply's board inputs followed by its
rating inputs and `board_inputs` 1022 in meta.json (src/model/network/inputs.rs,
`rating_inputs`): 977 + the mover's bucket, 997 + the opponent's, 1017 + the speed class, a bucket
being `(clamp(r, 800, 2799) - 800) // 100`; the speed class from base + 40 increment seconds
(0 unknown, 1 below 180, 2 below 480, 3 below 1500, 4 classical). A side without a rating has no
input; a game with neither has none, not even its speed.
"""

import argparse
import json
import math
import os
import shutil

import numpy as np

from model import BOARD_INPUTS, RATED_BOARD_INPUTS, SPEEDS
from model import RATING_BUCKETS as BUCKETS

assert RATED_BOARD_INPUTS == BOARD_INPUTS + 2 * BUCKETS + SPEEDS


def rating(v):
    """A rating field: a plain number of at most 5 digits, else unknown (`None`)."""
    return int(v) if v.isascii() and v.isdigit() and len(v) <= 5 else None


def speed(control):
    """Speed class of a `TimeControl` value (`base+inc` seconds; `-`, `?` or junk: 0)."""
    base, _, inc = control.partition("+")
    try:
        base, inc = int(base), float(inc or "0")
    except ValueError:
        return 0
    if not 0.0 <= inc < 1e6 or base > 1 << 40:
        return 0
    seconds = (base * 1000 + math.floor(inc * 1000 + 0.5) * 40) // 1000
    return 1 if seconds < 180 else 2 if seconds < 480 else 3 if seconds < 1500 else 4


def rating_inputs(white, black, spd, white_to_move):
    """The rating inputs of one ply, increasing (as `rating_inputs` in inputs.rs)."""
    if white is None and black is None:
        return []
    bucket = lambda r: (min(max(r, 800), 800 + 100 * BUCKETS - 1) - 800) // 100  # noqa: E731
    mover, opponent = (white, black) if white_to_move else (black, white)
    out = []
    if mover is not None:
        out.append(BOARD_INPUTS + bucket(mover))
    if opponent is not None:
        out.append(BOARD_INPUTS + BUCKETS + bucket(opponent))
    return out + [BOARD_INPUTS + 2 * BUCKETS + spd]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("export", help="tune export's folder of GAMES.txt (without ratings)")
    ap.add_argument("games", help="the movetext file that was exported")
    ap.add_argument("ratings", help="its ratings file, one line per game")
    ap.add_argument("--out", required=True, help="folder to write")
    args = ap.parse_args()
    with open(os.path.join(args.export, "meta.json")) as f:
        meta = json.load(f)
    assert meta["board_inputs"] == BOARD_INPUTS, "the export has rating inputs already"
    games = [line.split() for line in open(args.games) if line.strip()]
    rated = [line.split() for line in open(args.ratings) if line.strip()]
    assert len(games) == len(rated) == meta["games"], f"{len(games)} games, {len(rated)} ratings lines, {meta['games']} exported"
    plies = [len(g) - 1 for g in games]  # the last token is the result
    assert sum(plies) == meta["plies"], "the movetext does not match the export"
    board_idx = np.fromfile(os.path.join(args.export, "board_idx.u16"), dtype="<u2")
    board_off = np.fromfile(os.path.join(args.export, "board_off.i64"), dtype="<i8")
    idx, off, n = [], [0], 0
    for g, (w, b, tc) in zip(plies, rated):
        white, black, spd = rating(w), rating(b), speed(tc)
        extra = [np.array(rating_inputs(white, black, spd, white_to_move=(k % 2 == 0)), dtype="<u2") for k in (0, 1)]
        for k in range(g):
            idx += [board_idx[board_off[n] : board_off[n + 1]], extra[k % 2]]
            off.append(off[-1] + board_off[n + 1] - board_off[n] + len(extra[k % 2]))
            n += 1
    os.makedirs(args.out, exist_ok=True)
    np.concatenate(idx).astype("<u2").tofile(os.path.join(args.out, "board_idx.u16"))
    np.array(off, dtype="<i8").tofile(os.path.join(args.out, "board_off.i64"))
    for name in os.listdir(args.export):
        if name not in ("board_idx.u16", "board_off.i64", "meta.json"):
            shutil.copyfile(os.path.join(args.export, name), os.path.join(args.out, name))
    meta["board_inputs"] = RATED_BOARD_INPUTS
    with open(os.path.join(args.out, "meta.json"), "w") as f:
        json.dump(meta, f)
        f.write("\n")
    print(f"wrote {args.out}: {meta['plies']} plies, {off[-1] - int(board_off[-1])} rating inputs added")


if __name__ == "__main__":
    main()
