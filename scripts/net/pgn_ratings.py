"""Converts a lichess PGN file into movetext plus the players' ratings, for the Elo inputs of the
level-2 network (`tune export --ratings`).

    python3 scripts/net/pgn_ratings.py IN.pgn OUT_STEM [--skip-unrated] [--heldout-every N]

writes `OUT_STEM.txt`, one game per line in the movetext format of ../shared/data/train (SAN
moves separated by single spaces, no move numbers, no `+`/`#`, then the result), and
`OUT_STEM.ratings`, one line per game of it: `WHITE BLACK TIMECONTROL`, e.g. `2038 1331 60+0`,
with `?` for a rating that is missing or not a number and `-` for a missing time control
(lichess writes `?` and `-` itself; a time control is copied as the tag spells it). With `--heldout-every N`, every N-th game kept (the N-th,
2N-th, ...) goes to `OUT_STEM.val.txt` and `OUT_STEM.val.ratings` instead: a validation split.

The parser is a small state machine (no dependency): tag lines `[Name "value"]`, brace and
semicolon comments, `%` escape lines, variations `( ... )` (dropped, nested), NAGs `$n`, move
numbers and the annotation suffixes `+ # ! ?` are removed; `0-0` is written `O-O`. A game ends at
its result token or where the next game's tags begin. Games that the movetext format cannot hold
are skipped and counted on stderr: set-up positions (`FEN`/`SetUp`), variants other than
standard chess, null moves. A game without a result token or tag gets `*` (the training files
have such games: unfinished or aborted). `--skip-unrated` also skips the
games where neither player has a rating (they get no rating inputs, so they teach the new rows
nothing). The moves are copied, not checked: `tune export` rejects an illegal game.
"""

import argparse
import re
import sys

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
TAG = re.compile(r'\s*\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
# One movetext token: comment start, line comment, parentheses, NAG, or a word.
TOKEN = re.compile(r"\{|;|\(|\)|\$\d+|[^\s{}();]+")
MOVE_NUMBER = re.compile(r"^\d+\.+")
RATING = re.compile(r"^\d{1,5}$")
TIME_CONTROL = re.compile(r"^[^\s?]+$")  # copied as the tag has it (`tune export` parses it); lichess: `60+0`, `-`


class Game:
    def __init__(self):
        self.tags = {}
        self.moves = []
        self.result = None
        self.bad = None  # why the movetext format cannot hold it
        self.started = False  # movetext seen


def read_games(lines):
    """Yields the games of `lines` (an iterable of text lines) as `Game`s."""
    game = Game()
    in_brace = False
    depth = 0

    def finish():
        nonlocal game, depth
        g, game, depth = game, Game(), 0
        return g

    for raw in lines:
        line = raw.rstrip("\r\n").lstrip("\ufeff")
        if not in_brace and line.startswith("%"):
            continue
        if not in_brace and depth == 0:
            # Tag pairs, possibly several on a line, possibly followed by movetext.
            m = TAG.match(line)
            if m and game.started:
                # The previous game had no result token: it ends where these tags begin.
                yield finish()
            while m:
                game.tags[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
                line = line[m.end() :]
                m = TAG.match(line)
        pos = 0
        while pos < len(line):
            if in_brace:
                end = line.find("}", pos)
                if end < 0:
                    break
                in_brace, pos = False, end + 1
                continue
            m = TOKEN.search(line, pos)
            if not m:
                break
            tok, pos = m.group(0), m.end()
            if tok == "{":
                in_brace = True
            elif tok == ";":
                break
            elif tok == "(":
                depth += 1
            elif tok == ")":
                depth = max(0, depth - 1)
            elif tok.startswith("$") or depth > 0:
                continue
            elif tok in RESULTS:
                game.result = tok
                game.started = True
                yield finish()
            else:
                game.started = True
                san = MOVE_NUMBER.sub("", tok).rstrip("+#!?")
                if not san or san.isdigit():  # a move number without its dot
                    continue
                if san in ("--", "Z0", "null", "@@@@"):
                    game.bad = "null move"
                san = {"0-0": "O-O", "0-0-0": "O-O-O"}.get(san, san)
                game.moves.append(san)
    if game.started or game.tags:
        yield game


def ratings_line(tags, unrated=()):
    """`WHITE BLACK TIMECONTROL` of a game's tags, `?`/`-` where missing; `?` also for the players
    named in `unrated` (whose moves then train no rating row with `train.py --mover-rated`)."""
    w, b = (tags.get(k, "?").strip() for k in ("WhiteElo", "BlackElo"))
    w = "?" if tags.get("White", "").strip() in unrated else w
    b = "?" if tags.get("Black", "").strip() in unrated else b
    tc = tags.get("TimeControl", "-").strip()
    return f"{w if RATING.match(w) else '?'} {b if RATING.match(b) else '?'} {tc if TIME_CONTROL.match(tc) else '-'}"


def why_skipped(game, skip_unrated):
    if game.bad:
        return game.bad
    if "FEN" in game.tags or game.tags.get("SetUp", "0") == "1":
        return "set-up position"
    if game.tags.get("Variant", "Standard").lower() not in ("standard", "chess"):
        return f"variant {game.tags['Variant']}"
    if skip_unrated and ratings_line(game.tags).startswith("? ?"):
        return "unrated"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pgn")
    ap.add_argument("out_stem", help="writes OUT_STEM.txt and OUT_STEM.ratings")
    ap.add_argument("--skip-unrated", action="store_true", help="skip games where neither player has a rating")
    ap.add_argument("--heldout-every", type=int, default=0, metavar="N", help="every N-th kept game goes to OUT_STEM.val.{txt,ratings}")
    ap.add_argument("--unrated-player", action="append", default=[], metavar="NAME", help="write `?` for this player's rating (repeat; e.g. the one account that plays most games of a file)")
    args = ap.parse_args()
    outs = {}

    def out(split, ext):
        key = (split, ext)
        if key not in outs:
            outs[key] = open(f"{args.out_stem}{split}.{ext}", "w", encoding="utf-8", newline="\n")
        return outs[key]

    out("", "txt"), out("", "ratings")
    if args.heldout_every > 0:
        out(".val", "txt"), out(".val", "ratings")
    kept, skipped = {"": 0, ".val": 0}, {}
    n = 0
    with open(args.pgn, encoding="utf-8-sig", errors="replace") as f:
        for game in read_games(f):
            why = why_skipped(game, args.skip_unrated)
            if why:
                skipped[why] = skipped.get(why, 0) + 1
                continue
            n += 1
            split = ".val" if args.heldout_every > 0 and n % args.heldout_every == 0 else ""
            result = game.result or game.tags.get("Result", "*")
            result = result if result in RESULTS else "*"
            out(split, "txt").write(" ".join(game.moves + [result]) + "\n")
            out(split, "ratings").write(ratings_line(game.tags, set(args.unrated_player)) + "\n")
            kept[split] += 1
    for f in outs.values():
        f.close()
    print(
        f"{args.pgn}: {kept['']} games to {args.out_stem}.txt/.ratings"
        + (f", {kept['.val']} to {args.out_stem}.val.txt/.ratings" if args.heldout_every > 0 else "")
        + (f"; skipped {', '.join(f'{v} {k}' for k, v in sorted(skipped.items()))}" if skipped else ""),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
