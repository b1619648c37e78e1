#!/usr/bin/env python3
"""Plots chesszip's prediction traces: bits per ply by ply number, and calibration.

Usage: scripts/plot.py TRACE_DIR OUT.png
TRACE_DIR holds `<name>.by_ply.csv` and `<name>.calibration.csv` files written by
`tune trace` (see scripts/plots.sh). Needs matplotlib (`pip install matplotlib`).
"""
import csv
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    trace_dir, out = pathlib.Path(sys.argv[1]), sys.argv[2]
    names = sorted(p.name[: -len(".by_ply.csv")] for p in trace_dir.glob("*.by_ply.csv"))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    for name in names:
        # The last row aggregates every ply from its number on (the trace's last bucket): left out.
        rows = [r for r in read(trace_dir / f"{name}.by_ply.csv")[:-1] if int(r["moves"]) >= 200]
        ax1.plot([int(r["ply"]) for r in rows], [float(r["bits_per_move"]) for r in rows], label=name)
        cal = [r for r in read(trace_dir / f"{name}.calibration.csv") if int(r["candidates"]) >= 1000]
        ax2.loglog([float(r["mean_predicted"]) for r in cal], [float(r["observed"]) for r in cal], "o-", label=name, ms=3)
    ax1.set_xlabel("ply number")
    ax1.set_ylabel("bits per move")
    ax1.set_title("Cost of a move by ply number (plies with >= 200 games)")
    ax1.grid(alpha=0.3)
    ax1.legend()
    lo, hi = 1e-6, 1.0
    ax2.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="perfect calibration")
    ax2.set_xlabel("predicted probability of a candidate move")
    ax2.set_ylabel("observed frequency of being played")
    ax2.set_title("Calibration (bins with >= 1000 candidates)")
    ax2.grid(alpha=0.3, which="both")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
