"""Joins teacher labels (label.py shards) to an exported split (`tune export`, with `uci.u16`).

For every legal move of the split, in the export's order, writes the teacher's probability,
and for every ply whether it has a label:

| file | type | length | content |
| --- | --- | --- | --- |
| `soft.f32` | f32 | M | the teacher's probability of each legal move (0 on unlabelled plies) |
| `has.u8` | u8 | N | 1 where the ply has a teacher label |
| `meta.json` | | | counts and the label folder |

The stored candidates hold most of the teacher's mass; the rest is spread evenly over the
other legal moves. Plies are matched by (game, ply): the export visits the games of the file in
order, every move of every non-empty line. Each label's move played must be the export's, and
its legal move count the export's: a mismatch stops the join.

A games file may hold a range of `sample.py`'s games (`--first-game`, the index of its first
line, and `--stem`, the shards' stem): only the shards of that range are joined.

usage: python join.py --games FILE --export DIR --labels DIR [DIR ...] --out DIR [--first-game N --stem STEM]
"""

import argparse
import glob
import json
import os

import numpy as np


def load_labels(dirs, stem):
    """The shards of `stem` in `dirs`, concatenated (later folders do not override earlier ones)."""
    seen, parts = set(), []
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, f"{stem}.*.npz"))):
            name = os.path.basename(path)
            if name in seen or name.endswith(".tmp.npz"):
                continue
            seen.add(name)
            parts.append(dict(np.load(path)))
    return parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", required=True)
    ap.add_argument("--export", required=True)
    ap.add_argument("--labels", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--first-game", type=int, default=0, help="the labels' game index of the file's first game")
    ap.add_argument("--stem", help="the shards' stem (default: the games file's)")
    a = ap.parse_args()
    stem = a.stem or os.path.splitext(os.path.basename(a.games))[0]
    lengths = [len(line.split()) - 1 for line in open(a.games) if line.strip()]
    games = range(a.first_game, a.first_game + len(lengths))
    game_off = np.concatenate([[0], np.cumsum(lengths)])
    meta = json.load(open(os.path.join(a.export, "meta.json")))
    assert game_off[-1] == meta["plies"], (game_off[-1], meta["plies"])
    move_off = np.fromfile(os.path.join(a.export, "move_off.i64"), np.int64)
    label = np.fromfile(os.path.join(a.export, "label.i32"), np.int32)
    uci = np.fromfile(os.path.join(a.export, "uci.u16"), np.uint16)
    soft = np.zeros(meta["moves"], np.float32)
    has = np.zeros(meta["plies"], np.uint8)
    for part in load_labels(a.labels, stem):
        if len(part["game"]) == 0:
            continue
        inside = [int(g) in games for g in (part["game"].min(), part["game"].max())]
        if not any(inside):
            continue
        if not all(inside):
            raise SystemExit(f"{stem}: a shard of games {part['game'].min()}-{part['game'].max()} straddles the file's range {games}")
        c0 = 0
        for i in range(len(part["game"])):
            n = int(part["ply"][i]) + game_off[part["game"][i] - a.first_game]
            m0, m1 = move_off[n], move_off[n + 1]
            codes = uci[m0:m1]
            k = int(part["ncand"][i])
            cand, prob = part["cand"][c0 : c0 + k], part["prob"][c0 : c0 + k].astype(np.float64) / 65535
            c0 += k
            assert codes[label[n]] == part["played"][i] and m1 - m0 == part["legal"][i], (stem, part["game"][i], part["ply"][i])
            pos = {int(c): j for j, c in enumerate(codes)}
            t = np.zeros(m1 - m0)
            rest = max(0.0, 1.0 - prob.sum())
            if m1 - m0 > k:
                t[:] = rest / (m1 - m0 - k)
            for c, p in zip(cand, prob):
                t[pos[int(c)]] = p
            soft[m0:m1] = t / t.sum()
            has[n] = 1
        assert c0 == len(part["cand"])
    os.makedirs(a.out, exist_ok=True)
    soft.tofile(os.path.join(a.out, "soft.f32"))
    has.tofile(os.path.join(a.out, "has.u8"))
    info = {"plies": meta["plies"], "moves": meta["moves"], "labelled": int(has.sum()), "labels": a.labels, "games": a.games}
    if a.first_game:
        info["first_game"] = a.first_game
    json.dump(info, open(os.path.join(a.out, "meta.json"), "w"))
    print(f"{stem}: {int(has.sum())} of {meta['plies']} plies labelled -> {a.out}")


if __name__ == "__main__":
    main()
