"""Plays games sampled from the Maia3-5M teacher and labels every position on the way.

More positions than we have games: each game is played move by move from the start, every move
drawn from the teacher's distribution over the legal moves (temperature 1) at an Elo drawn per
game from `--elos` (the same for both sides), and each position's distribution is stored as
`label.py` stores it. A game ends where the rules end it, or at a length drawn from the lengths
of the games in `--lengths` (real games mostly end by resignation, not by mate).

Output: per shard of `--shard` games, `OUT/<stem>.<first>-<last>.npz` in `label.py`'s format
(game, ply, played, logp, legal, ncand, cand, prob; `played` is the sampled move) and
`OUT/<stem>.<first>-<last>.txt`, the games as movetext lines (SAN moves, then the result or
`*`), plus `OUT/<stem>.<first>-<last>.elo` (one Elo per game). Shards are written atomically and
a rerun skips finished ones; a shard's games depend only on `--seed` and its first game, so
reruns reproduce them. `cat OUT/<stem>.*.txt > <stem>.txt` (in shard order) is the games file
for `tune export` and `join.py`.

usage: python sample.py --model maia3-5m-batch-int8.onnx --lengths TRAIN_FILE --games N --out DIR
"""

import argparse
import os
import sys
import time

import chess
import numpy as np
from label import HISTORY, Shard, open_teacher, planes, vocab_index


class Game:
    """One game being sampled: its board, history planes and SAN moves."""

    def __init__(self, index, elo, length):
        self.index, self.elo, self.length = index, elo, length
        self.board = chess.Board()
        self.hist = [planes(self.board)]
        self.san = []

    def done(self):
        return len(self.san) >= self.length or self.board.is_game_over(claim_draw=False)

    def inputs(self):
        recent = self.hist[-HISTORY:]
        return np.concatenate([recent[0]] * (HISTORY - len(recent)) + recent, axis=1)

    def line(self):
        result = self.board.result(claim_draw=False)
        return " ".join(self.san + [result]) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--lengths", required=True, help="a games file whose game lengths (plies) are drawn from")
    ap.add_argument("--games", type=int, required=True, help="games to sample in all")
    ap.add_argument("--from", dest="first", type=int, default=0, help="first game (shard) to make")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stem", default="teacher_sampled")
    ap.add_argument("--elos", default="1100,1300,1500,1700,1900,2100")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--shard", type=int, default=100)
    ap.add_argument("--parallel", type=int, default=16, help="games played side by side (the batch size)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--mass", type=float, default=0.95)
    ap.add_argument("--topk", type=int, default=8)
    a = ap.parse_args()
    sess = open_teacher(a.model, a.threads)
    lengths = np.array([len(line.split()) - 1 for line in open(a.lengths) if line.strip()])
    elos = np.array([int(e) for e in a.elos.split(",")])
    os.makedirs(a.out, exist_ok=True)
    t0, done = time.time(), 0
    for g0 in range(a.first, a.games, a.shard):
        g1 = min(g0 + a.shard, a.games)
        base = os.path.join(a.out, f"{a.stem}.{g0:06d}-{g1:06d}")
        if os.path.exists(base + ".npz"):
            continue
        rng = np.random.default_rng([a.seed, g0])
        todo = [Game(gi, int(rng.choice(elos)), max(1, int(rng.choice(lengths)))) for gi in range(g0, g1)]
        playing, finished, shard = [], [], Shard()
        while todo or playing:
            while todo and len(playing) < a.parallel:
                playing.append(todo.pop(0))
            x = np.stack([g.inputs() for g in playing]).astype(np.float32)
            elo = np.array([g.elo for g in playing], np.int64)
            out = sess.run(["logits_move"], {"tokens": x, "self_elo": elo, "oppo_elo": elo})[0]
            for g, logits in zip(playing, out):
                legal = list(g.board.legal_moves)
                white = g.board.turn == chess.WHITE
                z = logits[[vocab_index(m, white) for m in legal]].astype(np.float64)
                p = np.exp(z - z.max())
                pick = int(rng.choice(len(legal), p=p / p.sum()))
                shard.add(g.index, len(g.san), legal, pick, logits, white, a.mass, a.topk)
                g.san.append(g.board.san(legal[pick]))
                g.board.push(legal[pick])
                g.hist.append(planes(g.board))
            finished += [g for g in playing if g.done()]
            playing = [g for g in playing if not g.done()]
        finished.sort(key=lambda g: g.index)
        shard.sort_by_game()
        for ext, text in ((".txt", "".join(g.line() for g in finished)), (".elo", "".join(f"{g.elo}\n" for g in finished))):
            with open(base + ext + ".tmp", "w") as f:
                f.write(text)
            os.replace(base + ext + ".tmp", base + ext)
        shard.save(base + ".npz")
        done += len(shard.cols["game"])
        dt = time.time() - t0
        print(f"{base}: {len(finished)} games, {len(shard.cols['game'])} plies; total {done} plies in {dt:.0f}s = {done / dt:.1f}/s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
