"""Offline test of the hidden fraction of a second behind lichess's whole-second `[%clk]` values
(docs/notes-clocks7.md). Needs numpy.

A player's true clock T (in 1/Q s) is shown rounded; a displayed spend k is the difference of two
shown clocks. With the offset u = T - Q*shown + Q/2 in 0..Q and a true spend r (1/Q s), the next
offset is (u - r) mod Q and the shown spend k = -floor((u - r) / Q), so k = u - u' + Q k' gives
r = u - u' + Q k: an HMM whose transition for a shown k is M_k[u, u'] = f(u - u' + Q k), f the
distribution of the true spend. The first clock of a game equals the base time exactly, so the
offset starts at Q/2 (rounding) or 0 (floor).

Prints, in bytes of the shown spends (spends >= KMAX are one symbol, coded alike by every model):
- in-sample: the categorical of the shown spend per context (the best any fixed table does) and
  the HMM with f fitted by EM (free f; f tied to steps of 1 s, as many parameters as the table);
- online (adaptive, as a coder would run): counts of the shown spend per context; the HMM with f
  learned by soft counts; the HMM with the in-sample tied f (a cheat) with and without tracking the
  fraction; counts with a context of the cheat HMM's predicted P(shown = 0) (4 buckets).

usage: python3 scripts/clock_fraction.py ../shared/data/pgn/lichess/2017-05.pgn [Q] [EM iterations]
"""

import collections
import math
import re
import sys

import numpy as np

KMAX = 12


def sequences(path):
    """Per player and game: (speed, offset known at the start, shown spends)."""
    text = open(path, encoding="utf-8", errors="replace").read()
    out = []
    for block in re.split(r"\n\n(?=\[)", text):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M))
        clocks = [int(h) * 3600 + int(m) * 60 + int(s) for h, m, s in re.findall(r"\[%clk (\d+):(\d\d):(\d\d)\]", block)]
        tc = tags.get("TimeControl", "-")
        base, inc = (int(tc.split("+")[0]), int(tc.split("+")[1])) if "+" in tc else (None, 0)
        speed = {"60+0": 0, "180+0": 1}.get(tc, 2)
        for color in (0, 1):
            cs = clocks[color::2]
            ks = [min(cs[i - 1] + inc - cs[i], KMAX) for i in range(1, len(cs))]
            if ks and min(ks) >= 0:
                out.append((speed, bool(cs) and cs[0] == base, ks))
    return out


def contexts(seq, kind):
    speed, _, ks = seq
    last = [None] + ks[:-1]
    if kind == "speed":
        return [(speed,) for _ in ks]
    return [(speed, 9 if p is None else min(p, 4)) for p in last]


def matrices(f, q):
    u = np.arange(q)
    out = []
    for k in range(KMAX):
        r = u[:, None] - u[None, :] + q * k
        out.append(np.where((r >= 0) & (r < len(f)), f[np.clip(r, 0, len(f) - 1)], 0.0))
    return out


def start(exact, q, init):
    a = np.ones(q) / q
    if exact:
        a = np.zeros(q)
        a[q // 2 if init == "round" else 0] = 1
    return a


def categorical_in_sample(seqs, kind):
    cnt = collections.defaultdict(collections.Counter)
    for s in seqs:
        for c, k in zip(contexts(s, kind), s[2]):
            cnt[c][k] += 1
    bits = 0.0
    for c in cnt.values():
        n = sum(c.values())
        bits -= sum(v * math.log2(v / n) for v in c.values())
    return bits / 8


def em(seqs, kind, q, iterations, tie, init="round"):
    """In-sample HMM: f per context fitted by EM; returns (bytes, f). Spends >= KMAX are coded by
    the context's in-sample frequency of them (as the categorical does) and reset the offset."""
    r_max = KMAX * q + q
    ctxs = sorted({c for s in seqs for c in contexts(s, kind)})
    tail = collections.Counter()
    total = collections.Counter()
    for s in seqs:
        for c, k in zip(contexts(s, kind), s[2]):
            total[c] += 1
            tail[c] += k >= KMAX
    f = {c: np.ones(r_max) / r_max for c in ctxs}
    u = np.arange(q)
    bits = 0.0
    for _ in range(iterations):
        ms = {c: matrices(f[c], q) for c in ctxs}
        counts = {c: np.full(r_max, 1e-3) for c in ctxs}
        bits = 0.0
        for s in seqs:
            cx, ks = contexts(s, kind), s[2]
            a = start(s[1], q, init)
            alphas = []
            for c, k in zip(cx, ks):
                alphas.append(a)
                pt = tail[c] / total[c]
                if k >= KMAX:
                    bits -= math.log2(pt)
                    a = np.ones(q) / q
                    continue
                na = a @ ms[c][k]
                z = na.sum()
                # P(k) renormalised to the mass of spends below KMAX, times P(below KMAX).
                below = sum((a @ m).sum() for m in ms[c])
                bits -= math.log2(z / below * (1 - pt))
                a = na / z
            b = np.ones(q)
            for i in range(len(ks) - 1, -1, -1):
                c, k = cx[i], ks[i]
                if k >= KMAX:
                    b = np.ones(q)
                    continue
                m = ms[c][k]
                xi = alphas[i][:, None] * m * b[None, :]
                xi /= xi.sum()
                r = u[:, None] - u[None, :] + q * k
                np.add.at(counts[c], r[m > 0], xi[m > 0])
                b = m @ b
                b /= b.sum()
        for c in ctxs:
            v = counts[c]
            if tie is not None:
                w = np.zeros(r_max)
                edges = [0] + list(range(tie, r_max, q)) + [r_max]
                for lo, hi in zip(edges[:-1], edges[1:]):
                    if hi > lo:
                        w[lo:hi] = v[lo:hi].sum() / (hi - lo)
                v = w
            f[c] = v / v.sum()
    return bits / 8, f


def online(seqs, kind, q, fixed=None, track=True, buckets=4):
    """Adaptive models, one pass in order. Returns bytes of: counts, counts with a context of the
    HMM's P(shown = 0), the HMM (f learned by soft counts, or `fixed`)."""
    r_max = KMAX * q + q
    counts = collections.defaultdict(lambda: np.ones(KMAX + 1) * 0.4)
    soft = collections.defaultdict(lambda: np.ones(r_max) / q)
    cache = {}
    u = np.arange(q)
    bits = collections.Counter()
    for s in seqs:
        a = start(s[1], q, "round")
        for c, k in zip(contexts(s, kind), s[2]):
            n = counts[("plain",) + c]
            pd = n / n.sum()
            if fixed is not None:
                if c not in cache:
                    cache[c] = matrices(fixed[c], q)
                ms = cache[c]
            else:
                ms = matrices(soft[c] / soft[c].sum(), q)
            ph = np.array([(a @ m).sum() for m in ms])
            ph = ph / ph.sum() * (1 - pd[KMAX])
            ph = np.append(ph, pd[KMAX])
            b = min(int(ph[0] / (1 - pd[KMAX]) * buckets), buckets - 1)
            nb = counts[("bucket", b) + c]
            bits["counts"] -= math.log2(pd[k])
            bits["counts + P(0) bucket"] -= math.log2(nb[k] / nb.sum())
            bits["hmm"] -= math.log2(ph[k])
            n[k] += 1
            nb[k] += 1
            if k >= KMAX:
                a = np.ones(q) / q
                continue
            xi = a[:, None] * ms[k]
            xi /= xi.sum()
            if fixed is None:
                r = u[:, None] - u[None, :] + q * k
                np.add.at(soft[c], r[ms[k] > 0], xi[ms[k] > 0])
            a = xi.sum(0) if track else np.ones(q) / q
    return {name: round(v / 8) for name, v in bits.items()}


def main():
    path = sys.argv[1]
    q = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    its = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    seqs = sequences(path)
    n = sum(len(s[2]) for s in seqs)
    first = collections.Counter(s[2][0] for s in seqs if s[1] and s[0] == 0 and s[2])
    later = collections.Counter(k for s in seqs if s[0] == 0 for k in s[2][1:])
    print(f"{len(seqs)} player-games, {n} shown spends; 60+0 first spends {sorted(first.items())[:4]}, later "
          f"{[(k, round(v / sum(later.values()), 3)) for k, v in sorted(later.items())[:4]]}")
    for init in ("round", "floor"):
        print(f"in-sample HMM, free f, context speed, start {init}: {em(seqs, 'speed', q, its, None, init)[0]:.0f}")
    for kind in ("speed", "own"):
        print(f"context {kind}: in-sample categorical {categorical_in_sample(seqs, kind):.0f}")
        print(f"  in-sample HMM free f {em(seqs, kind, q, its, None)[0]:.0f}")
        tied, f = em(seqs, kind, q, its, q // 2)
        print(f"  in-sample HMM f tied to seconds {tied:.0f}")
        print(f"  online, f learned by soft counts: {online(seqs, kind, q)}")
        print(f"  online, in-sample tied f, fraction tracked: {online(seqs, kind, q, f)}")
        print(f"  online, in-sample tied f, not tracked: {online(seqs, kind, q, f, track=False)}")


if __name__ == "__main__":
    main()
