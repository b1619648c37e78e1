"""Trains the move network on exported training data (`tune export`), validating on heldout.

    python3 scripts/net/train.py --train DIR [--train DIR ...] --heldout DIR --out net.pt

Each epoch visits the training plies in shuffled batches of consecutive plies; the heldout
split is only evaluated (never fitted, never used to stop). The loss is the cross-entropy in
bits per ply of the played move under the coder's distribution: softmax mixed with the model's
uniform floor. With `--teacher-root` and `--alpha`, on the plies that the teacher labelled
(scripts/teacher) the loss is `(1 - alpha)` times that plus `alpha` times the cross-entropy of
the coder's distribution against the teacher's over the legal moves (distillation).
Quantisation-aware from `--qat-epoch` on. The checkpoint kept is the epoch with
the best heldout bits (early stopping on validation data).

The number of board inputs is the training data's (`board_inputs` of meta.json: 977, or 1022
when exported with `tune export --ratings`; the most of the splits' and `--init`'s, so exports
with and without ratings can be mixed). `--init` of a 977-input checkpoint into a 1022-input
network copies its rows and starts the rating rows at zero. `--train-rows FROM` trains only the
rows `FROM..` of the first layer (`w1`), quantisation-aware from the start, and keeps every other
weight exactly as `--init` has it (their gradients are not computed, they are not given to the
optimiser, and the frozen rows of `w1` are masked out of its gradient and restored after every
step); at the end it checks that the saved checkpoint's frozen weights are bit-identical to the
initial ones. The rating experiments of docs/notes-ratings.md: version 5's level-2 network
(`import_net.py`) with rating rows trained by `--init v5.pt --train-rows 977` (on games without
ratings it computes version 5's integers exactly); `--mover-rated` trains and evaluates only the
plies whose mover's rating is known. None of them became a release.
"""

import argparse
import math
import os
import random
import time

import numpy as np
import torch

from data import Split
from model import BOARD_INPUTS, RATING_BUCKETS, MoveNet, ply_log_probs, soft_cross_entropy


def mover_rated(b):
    """Per ply of batch `b`, whether the mover's rating is known (a board input among the mover's
    rating buckets, 977..996: src/model/network/inputs.rs)."""
    idx, off = b["board_idx"], b["board_off"]
    ply = torch.searchsorted(off, torch.arange(len(idx)), right=True) - 1
    hit = ((idx >= BOARD_INPUTS) & (idx < BOARD_INPUTS + RATING_BUCKETS)).to(torch.float32)
    return torch.zeros(len(off)).index_add(0, ply, hit) > 0


def evaluate(net, split, floor, batch, only_rated=False):
    """Heldout bits per ply (only the plies whose mover is rated, with `only_rated`)."""
    net.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for lo, hi in split.ranges(batch):
            b = split.batch(lo, hi)
            per_ply = -ply_log_probs(net(b), b, floor)
            rated = mover_rated(b) if only_rated else torch.ones(hi - lo, dtype=torch.bool)
            total += per_ply[rated].sum().item()
            n += int(rated.sum())
    net.train()
    assert n > 0, f"{split.folder}: no plies to evaluate" + (" whose mover is rated (--mover-rated)" if only_rated else "")
    return total / n / math.log(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", action="append", required=True, help="exported training folder (repeat)")
    ap.add_argument("--heldout", required=True, help="exported heldout folder")
    ap.add_argument("--out", required=True, help="where to save the trained state (.pt)")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=1024, help="plies per batch")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--h1", type=int, default=256)
    ap.add_argument("--h2", type=int, default=64)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--floor", type=float, default=256 / 65536, help="uniform floor of the coder (move.floor / 65536)")
    ap.add_argument("--qat-epoch", type=int, default=1, help="first epoch (0-based) with quantisation-aware rounding")
    ap.add_argument("--fraction", type=float, default=1.0, help="use this fraction of each training split (learning curves)")
    ap.add_argument("--no-hand", action="store_true", help="ablation: without the hand features (no linear model, no F)")
    ap.add_argument("--no-board", action="store_true", help="ablation: without the board context")
    ap.add_argument("--init", help="start from this checkpoint (fine-tuning, e.g. for another level's features; a narrower one is widened to --h1/--h2/--d, computing the same logits)")
    ap.add_argument("--teacher-root", help="folder of join.py outputs, one per training split, named as the split's folder")
    ap.add_argument("--alpha", type=float, default=0.0, help="weight of the teacher's soft targets on labelled plies")
    ap.add_argument("--temperature", type=float, default=1.0, help="teacher distribution ** (1/T), renormalised")
    ap.add_argument("--teacher-plies", type=int, help="use at most this many labelled plies (in split order)")
    ap.add_argument("--train-rows", type=int, metavar="FROM", help="train only the rows FROM.. of w1 (e.g. 977: the rating inputs), freezing every other weight at --init's; quantisation-aware from the start")
    ap.add_argument("--mover-rated", action="store_true", help="train and evaluate only on plies whose mover's rating is known (rating rows learned from the moves of the rated players only)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)
    train, budget = [], args.teacher_plies
    for f in args.train:
        t = args.teacher_root and os.path.join(args.teacher_root, os.path.basename(os.path.normpath(f)))
        train.append(Split(f, t if t and os.path.isdir(t) else None, budget))
        if budget is not None:
            budget -= train[-1].labelled
    labelled = sum(s.labelled for s in train)
    heldout = Split(args.heldout)
    hand = train[0].meta["hand"]
    for s in train + [heldout]:
        assert s.meta["hand"] == hand and s.meta["level"] == train[0].meta["level"], s.folder
    init = torch.load(args.init, map_location="cpu")["state"] if args.init else None
    # Board inputs: the most of any split's (exports with and without ratings mix: a ply without
    # ratings just has no rating input) and of --init's.
    inputs = max([s.meta.get("board_inputs", BOARD_INPUTS) for s in train + [heldout]] + ([init["w1.weight"].shape[0]] if init else []))
    batches = []
    for s in train:
        ranges = s.ranges(args.batch)
        batches += [(s, r) for r in ranges[: max(1, round(len(ranges) * args.fraction))]]
    plies = sum(hi - lo for _, (lo, hi) in batches)
    print(f"training on {plies} plies in {len(batches)} batches, {inputs} board inputs ({labelled} teacher-labelled, alpha {args.alpha}); heldout {heldout.plies} plies", flush=True)

    net = MoveNet(hand, train[0].linear, args.h1, args.h2, args.d, inputs)
    net.no_hand, net.no_board = args.no_hand, args.no_board
    if init is not None:
        net.load_init(init)
    frozen = None
    if args.train_rows is not None:
        assert args.init, "--train-rows needs --init (the weights it keeps)"
        assert 0 <= args.train_rows < inputs, f"--train-rows {args.train_rows}: the network has {inputs} board inputs"
        # Quantisation-aware from the start: the frozen weights are on their integer grids already.
        args.qat_epoch = 0
        frozen = {k: v.detach().clone() for k, v in net.state_dict().items()}
        for name, p in net.named_parameters():
            p.requires_grad_(name == "w1.weight")
        keep = torch.zeros(inputs, 1)
        keep[args.train_rows :] = 1.0
        net.w1.weight.register_hook(lambda g: g * keep)
        print(f"training only w1 rows {args.train_rows}..{inputs}; every other weight frozen at {args.init}", flush=True)
    opt = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=args.lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.epochs * len(batches), pct_start=0.1)
    net.qat = frozen is not None
    print(f"epoch 0 (start): heldout {evaluate(net, heldout, args.floor, 4096, args.mover_rated):.4f} bits/ply", flush=True)
    best = float("inf")
    for epoch in range(args.epochs):
        net.qat = epoch >= args.qat_epoch
        random.shuffle(batches)
        t0, run, run_n = time.time(), 0.0, 0
        for step, (s, (lo, hi)) in enumerate(batches):
            b = s.batch(lo, hi)
            logits = net(b)
            per_ply = -ply_log_probs(logits, b, args.floor)
            if args.alpha > 0 and "has" in b and b["has"].any():
                soft = soft_cross_entropy(logits, b, args.floor, args.temperature)
                per_ply = torch.where(b["has"], (1.0 - args.alpha) * per_ply + args.alpha * soft, per_ply)
            if args.mover_rated:
                rated = mover_rated(b).to(per_ply.dtype)
                loss = (per_ply * rated).sum() / rated.sum().clamp_min(1.0) / math.log(2)
            else:
                loss = per_ply.mean() / math.log(2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if frozen is not None:
                with torch.no_grad():
                    net.w1.weight[: args.train_rows] = frozen["w1.weight"][: args.train_rows]
            run += loss.item() * (hi - lo)
            run_n += hi - lo
            if (step + 1) % 200 == 0:
                print(f"  epoch {epoch + 1} step {step + 1}/{len(batches)}: train {run / run_n:.4f} bits/ply, {time.time() - t0:.0f} s", flush=True)
                run, run_n = 0.0, 0
        h = evaluate(net, heldout, args.floor, 4096, args.mover_rated)
        print(f"epoch {epoch + 1}{' (qat)' if net.qat else ''}: heldout {h:.4f} bits/ply, {time.time() - t0:.0f} s", flush=True)
        if h < best:
            # Early stopping on the heldout games (validation; the benchmark is never read).
            best = h
            torch.save({"state": net.state_dict(), "args": vars(args), "hand": hand, "inputs": inputs, "heldout_bits": h, "epoch": epoch + 1}, args.out)
    print(f"saved {args.out}: the epoch with the best heldout bits, {best:.4f}")
    if frozen is not None:
        saved = torch.load(args.out, map_location="cpu")["state"]
        for k, v in frozen.items():
            rows = slice(0, args.train_rows) if k == "w1.weight" else slice(None)
            assert torch.equal(saved[k][rows], v[rows]), f"{k} moved: the frozen weights must stay bit-identical to --init"
        moved = (saved["w1.weight"][args.train_rows :] != frozen["w1.weight"][args.train_rows :]).any(dim=1).sum().item()
        print(f"checked: w1 rows 0..{args.train_rows} and every other tensor are bit-identical to --init; {moved} of {inputs - args.train_rows} trained rows moved")


if __name__ == "__main__":
    main()
