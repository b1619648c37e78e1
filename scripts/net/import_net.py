"""Reads an integer move network back into a checkpoint of `train.py`, so that training can start
from a released network (`train.py --init X.pt`), e.g. the rating rows of docs/notes-ratings.md on top of
version 5's level-2 network:

    python3 scripts/net/import_net.py models/v5/level2.net models/v5/level2.txt --out v5.pt
    python3 scripts/net/export.py v5.pt --out /tmp/v5again   # cmp /tmp/v5again.net models/v5/level2.net

NET is a network file (format: src/model/network/weights.rs, written by export.py); the second
argument gives the linear move weights (1/256 nat): a model parameter file, whose `move.*` lines
`tune assemble` wrote from export.py's `.linear.i32` (groups and order: move_layout in
src/model/features.rs), or such a `.linear.i32` itself. Every float weight of the checkpoint is
exactly its integer / 2^scale (the scales of model.py; all of them are exact in float32, which
is checked), so export.py of the checkpoint writes NET again byte for byte and the
quantisation-aware forward pass starts at the integer network's weights.
"""

import argparse
import re
import struct
import zlib

import numpy as np
import torch

from model import S_B2, S_E, S_P, S_PB, S_Q, S_V, S_W1, S_W2, SQUARE_INPUTS

MAGIC = b"CZNET\0\0\x01"
# The linear move weights' groups; `loss` (phases x skills x 8) takes the rest of the
# network's hand count. Groups (`move.NAME`), in the order of move_layout (src/model/features.rs).
GROUP_NAMES = (
    ["loss"]
    + [f"from.{p}" for p in "PNBRQK"]
    + [f"to.{p}" for p in "PNBRQK"]
    + "capture promotion check recapture same_piece dist_last escape escape_hanging to_attacked to_hanging threatens capture_free to_pawn_attacked escape_threat see see_loss".split()
)
GROUP_LENS = {f"{k}.{p}": 64 for k in ("from", "to") for p in "PNBRQK"} | {
    "capture": 36, "promotion": 4, "check": 6, "recapture": 6, "same_piece": 6, "dist_last": 8, "escape": 6,
    "escape_hanging": 6, "to_attacked": 6, "to_hanging": 6, "threatens": 5, "capture_free": 5,
    "to_pawn_attacked": 6, "escape_threat": 6, "see": 8, "see_loss": 6,
}  # fmt: skip


def read_net(path):
    """The header `(inputs, squares, hand, h1, h2, d)` and the integer tensors of a network file,
    by their names in train.py's state (shapes as model.py's parameters)."""
    data = open(path, "rb").read()
    assert data[: len(MAGIC)] == MAGIC, f"{path}: not a chesszip network file"
    body, crc = data[:-4], struct.unpack("<I", data[-4:])[0]
    assert zlib.crc32(body) == crc, f"{path}: checksum mismatch"
    dims = struct.unpack("<6I", body[len(MAGIC) : len(MAGIC) + 24])
    inputs, squares, hand, h1, h2, d = dims
    assert squares == SQUARE_INPUTS, path
    pos = len(MAGIC) + 24
    layout = [
        ("w1.weight", "<i2", (inputs, h1), S_W1),
        ("b1", "<i4", (h1,), S_W1),
        ("l2.weight", "<i2", (h2, h1), S_W2),
        ("l2.bias", "<i4", (h2,), S_B2),
        ("p.weight", "<i2", (d, h2), S_P),
        ("p.bias", "<i4", (d,), S_PB),
        ("q.weight", "<i2", (d, h2), S_Q),
        ("ef.weight", "<i2", (squares, d), S_E),
        ("et.weight", "<i2", (squares, d), S_E),
        ("gf.weight", "<i2", (squares, d), S_E),
        ("gt.weight", "<i2", (squares, d), S_E),
        ("f.weight", "<i2", (hand, d), S_E),
        ("v", "<i2", (d,), S_V),
    ]
    tensors = {}
    for name, dtype, shape, bits in layout:
        n = int(np.prod(shape)) * np.dtype(dtype).itemsize
        tensors[name] = (np.frombuffer(body[pos : pos + n], dtype=dtype).reshape(shape).astype(np.int64), bits)
        pos += n
    assert pos == len(body), f"{path}: trailing bytes"
    return dims, tensors


def read_linear(path, hand):
    """The linear move weights (1/256 nat) of a `.linear.i32` or of a parameter file's `move.*` lines."""
    if path.endswith(".i32"):
        w = np.fromfile(path, dtype="<i4").astype(np.int64)
        assert len(w) == hand, f"{path}: {len(w)} weights, the network has {hand} hand features"
        return w
    lines = {}
    for line in open(path):
        fields = line.split()
        if fields and fields[0].startswith("move."):
            lines[fields[0]] = [int(x) for x in fields[1:]]
    w = []
    for g in GROUP_NAMES:
        if g in GROUP_LENS and GROUP_LENS[g] == 64:
            rows = [lines.get(f"move.{g}.{r}") for r in range(1, 9)]
            vals = sum(rows, []) if all(rows) else [0] * 64  # a missing group is zero, as params.rs reads it
        else:
            vals = lines.get(f"move.{g}", [])
            n = GROUP_LENS.get(g)
            if n is None:  # `loss`: the rest of the layout decides its length
                n = hand - sum(GROUP_LENS.values())
            vals = vals or [0] * n
        assert len(vals) == (GROUP_LENS.get(g) or hand - sum(GROUP_LENS.values())), f"{path}: move.{g} has {len(vals)} values"
        w += vals
    assert len(w) == hand, f"{path}: {len(w)} move weights, the network has {hand} hand features"
    return np.array(w, dtype=np.int64)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("net", help="integer network file (.net)")
    ap.add_argument("linear", help="the model's parameter file (.txt) or a .linear.i32")
    ap.add_argument("--out", required=True, help="checkpoint to write (.pt)")
    args = ap.parse_args()
    (inputs, _, hand, h1, h2, d), tensors = read_net(args.net)
    state = {}
    for name, (ints, bits) in tensors.items():
        t = torch.from_numpy(ints.astype(np.float64) / (1 << bits)).to(torch.float32)
        assert torch.equal(torch.round(t.double() * (1 << bits)).long(), torch.from_numpy(ints)), f"{name} is not exact in float32"
        state[name] = t
    lin = read_linear(args.linear, hand)
    state["linear.weight"] = torch.from_numpy(lin.astype(np.float64) / 256.0).to(torch.float32).view(-1, 1)
    assert torch.equal(torch.round(state["linear.weight"].double().view(-1) * 256).long(), torch.from_numpy(lin)), "linear weights are not exact in float32"
    ck = {
        "state": state,
        "args": {"h1": h1, "h2": h2, "d": d, "inputs": inputs, "imported_from": [args.net, args.linear]},
        "hand": hand,
        "inputs": inputs,
        "heldout_bits": float("nan"),
        "epoch": 0,
    }
    torch.save(ck, args.out)
    print(f"wrote {args.out}: {args.net} ({inputs} board inputs, h1 {h1}, h2 {h2}, d {d}, {hand} hand features) with the linear weights of {args.linear}")


if __name__ == "__main__":
    main()
