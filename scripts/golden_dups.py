#!/usr/bin/env python3
"""Makes tests/golden/dups.txt, the duplicate-heavy golden input of coding 2 (issue 35): the
complete lines of movetext.txt, then 25 of them again, all of them shuffled, 20 drawn at
random, all of them again in order, and movetext.txt's last line (without line feed)."""
import random
from pathlib import Path

golden = Path(__file__).resolve().parent.parent / "tests" / "golden"
lines = (golden / "movetext.txt").read_bytes().split(b"\n")
last, full = lines[-1], [line + b"\n" for line in lines[:-1]]
rng = random.Random(35)
shuffled = full[:]
rng.shuffle(shuffled)
drawn = [rng.choice(full) for _ in range(20)]
out = b"".join(full) + b"".join(full[5:30]) + b"".join(shuffled) + b"".join(drawn) + b"".join(full) + last
(golden / "dups.txt").write_bytes(out)
