#!/usr/bin/env python3
"""Makes tests/golden/dups.pgn, the duplicate-heavy golden input of PGN coding 7: the games of
lichess.pgn, then games 2 to 5 again, all of them shuffled, 6 drawn at random, all of them
again in order, and the first game once more without its last line feed (not complete, so
coded, not copied). A game is its tag section, movetext and the blank lines after it."""
import random
import re
from pathlib import Path

golden = Path(__file__).resolve().parent.parent / "tests" / "golden"
text = (golden / "lichess.pgn").read_bytes()
# Games start at a tag line after a blank line (or at the start).
starts = [0] + [m.start() + 2 for m in re.finditer(rb"\n\n\[", text)]
games = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
assert b"".join(games) == text and all(g.endswith(b"\n\n") for g in games)
rng = random.Random(7)
shuffled = games[:]
rng.shuffle(shuffled)
drawn = [rng.choice(games) for _ in range(6)]
out = b"".join(games) + b"".join(games[1:5]) + b"".join(shuffled) + b"".join(drawn) + b"".join(games) + games[0].rstrip(b"\n")
(golden / "dups.pgn").write_bytes(out)
print(f"{len(games)} games, {len(out)} bytes")
