"""The teacher's own gain from inferring the players' skill: on games labelled by `label.py`
at several `--elo` settings (one folder per setting, the same games), the cost of each fixed
setting, and of a Bayesian posterior over the settings (uniform prior), updated after every
move from the moves already seen, per side or per game, as a decoder could do it.

    python skill.py DIR_ELO1100 DIR_ELO1500 ... --stem lichess_heldout

Prints bits per ply (the move played, under the teacher restricted to the legal moves).
"""

import argparse
import glob
import math
import os

import numpy as np


def load(folder, stem):
    parts = [np.load(p) for p in sorted(glob.glob(os.path.join(folder, f"{stem}.*.npz"))) if not p.endswith(".tmp.npz")]
    return (np.concatenate([p[k] for p in parts]) for k in ("game", "ply", "logp"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", help="label folders, one per Elo setting")
    ap.add_argument("--stem", default="lichess_heldout")
    a = ap.parse_args()
    cols, game, ply = [], None, None
    for f in a.folders:
        g, p, lp = load(f, a.stem)
        if game is None:
            game, ply = g, p
        assert (g == game).all() and (p == ply).all(), f"{f}: other plies than {a.folders[0]}"
        cols.append(lp.astype(np.float64))
    lp = np.stack(cols, 1)
    n, k = lp.shape
    print(f"{n} plies, {k} settings")
    for j, f in enumerate(a.folders):
        print(f"fixed {os.path.basename(os.path.normpath(f))}: {-lp[:, j].mean() / math.log(2):.4f} bits/ply")
    for scope in ("side", "game"):
        total, post = 0.0, {}
        for i in range(n):
            key = (int(game[i]), int(ply[i]) % 2 if scope == "side" else 0)
            w = post.get(key, np.full(k, -math.log(k)))
            p = np.exp(w - w.max())
            total -= math.log((p / p.sum() * np.exp(lp[i])).sum())
            post[key] = w + lp[i]
        print(f"posterior per {scope}: {total / n / math.log(2):.4f} bits/ply")


if __name__ == "__main__":
    main()
