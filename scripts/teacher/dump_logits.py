"""Dumps positions of movetext games with onnxruntime's float logits of their legal moves, for
comparing chesszip's integer Chessformer with the float teacher (`examples/level10_compare.rs`).

Output (little-endian): b"L10P", u32 count, then per ply: u16 self Elo, u16 opponent Elo,
u8 legal moves n, u8 index of the move played among them, 768 bytes of the 64 x 96 input planes
packed bitwise (token-major, bit order little), n x u16 vocabulary indices of the legal moves
(in python-chess order), n x f32 the teacher's logits of those moves.

usage: python dump_logits.py --model maia3-5m-batch.onnx --games FILE --games-count N --out FILE
"""

import argparse
import struct
import sys

import numpy as np

from label import game_positions, open_teacher, vocab_index


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--games", required=True)
    ap.add_argument("--games-count", type=int, default=100)
    ap.add_argument("--elo", type=int, default=1500)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    sess = open_teacher(a.model, a.threads)
    games = [line.split() for line in open(a.games) if line.strip()][: a.games_count]
    records = []
    for g in games:
        pos = list(game_positions(g[:-1]))
        x = np.stack([p[0] for p in pos]).astype(np.float32)
        elo = np.full(len(pos), a.elo, np.int64)
        out = sess.run(["logits_move"], {"tokens": x, "self_elo": elo, "oppo_elo": elo})[0]
        for (planes, legal, played, white), logits in zip(pos, out):
            idx = np.array([vocab_index(m, white) for m in legal], np.uint16)
            rec = struct.pack("<HHBB", a.elo, a.elo, len(legal), played)
            rec += np.packbits(planes.reshape(-1), bitorder="little").tobytes()
            rec += idx.tobytes() + logits[idx].astype("<f4").tobytes()
            records.append(rec)
    with open(a.out, "wb") as f:
        f.write(b"L10P" + struct.pack("<I", len(records)))
        for r in records:
            f.write(r)
    print(f"{len(records)} plies from {len(games)} games -> {a.out}")


if __name__ == "__main__":
    sys.exit(main())
