"""Writes a trained move network (`train.py`'s .pt) as the integer files the Rust model reads.

    python3 scripts/net/export.py net.pt --out models/v2/level2

writes `models/v2/level2.net` (format: src/model/network.rs; its header's input count is the
checkpoint's, w1's rows: 977, or 1022 with the rating inputs) and `models/v2/level2.linear.i32`
(the linear move weights in 1/256 nat, which `tune assemble` puts into a parameter file).
Weights are rounded to their fixed-point grids exactly as the quantisation-aware forward pass
rounds them.
"""

import argparse
import struct
import zlib

import numpy as np
import torch

from model import SQUARE_INPUTS, S_B2, S_E, S_P, S_PB, S_Q, S_V, S_W1, S_W2

MAGIC = b"CZNET\0\0\x01"


def grid(t, bits, dtype):
    x = np.round(t.detach().double().numpy() * (1 << bits))
    if dtype == np.int16:
        x = np.clip(x, -32768, 32767)
    return x.astype(dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--out", required=True, help="output path without extension")
    args = ap.parse_args()
    ck = torch.load(args.checkpoint, map_location="cpu")
    st = ck["state"]
    a = ck["args"]
    h1, h2, d, hand = a["h1"], a["h2"], a["d"], ck["hand"]
    tensors = [
        grid(st["w1.weight"], S_W1, np.int16),  # inputs x h1
        grid(st["b1"], S_W1, np.int32),
        grid(st["l2.weight"], S_W2, np.int16),  # h2 x h1
        grid(st["l2.bias"], S_B2, np.int32),
        grid(st["p.weight"], S_P, np.int16),  # d x h2
        grid(st["p.bias"], S_PB, np.int32),
        grid(st["q.weight"], S_Q, np.int16),  # d x h2
        grid(st["ef.weight"], S_E, np.int16),  # 384 x d
        grid(st["et.weight"], S_E, np.int16),
        grid(st["gf.weight"], S_E, np.int16),
        grid(st["gt.weight"], S_E, np.int16),
        grid(st["f.weight"], S_E, np.int16),  # hand x d
        grid(st["v"], S_V, np.int16),
    ]
    # The board inputs: 977, or 1022 for a network that also reads the ratings (model.py).
    inputs = tensors[0].shape[0]
    assert tensors[0].shape == (inputs, h1) and tensors[7].shape == (SQUARE_INPUTS, d) and tensors[11].shape == (hand, d)
    body = MAGIC + struct.pack("<6I", inputs, SQUARE_INPUTS, hand, h1, h2, d)
    body += b"".join(np.ascontiguousarray(t).astype(t.dtype.newbyteorder("<")).tobytes() for t in tensors)
    body += struct.pack("<I", zlib.crc32(body))
    with open(args.out + ".net", "wb") as f:
        f.write(body)
    linear = grid(st["linear.weight"].view(-1), 8, np.int32)
    linear.astype("<i4").tofile(args.out + ".linear.i32")
    print(f"wrote {args.out}.net ({len(body)} bytes) and {args.out}.linear.i32; heldout {ck.get('heldout_bits', float('nan')):.4f} bits/ply (float, no book)")


if __name__ == "__main__":
    main()
