"""Ratings file (`tune export --ratings`) for the games sampled from the teacher.

    python3 scripts/net/elo_ratings.py GAMES.elo OUT.ratings

`scripts/teacher/sample.py` plays both sides of a game at one Elo and writes it, one line per game,
beside the movetext (data/teacher/sampled-*/teacher_sampled*.elo); this writes `E E -` per game:
both players rated E, no time control (the teacher's games have no clock).
"""

import argparse


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elo", help="one Elo per game")
    ap.add_argument("out", help="the ratings file to write")
    args = ap.parse_args()
    with open(args.elo) as f:
        elos = [int(line) for line in f if line.strip()]
    with open(args.out, "w", newline="\n") as f:
        f.writelines(f"{e} {e} -\n" for e in elos)
    print(f"wrote {args.out}: {len(elos)} games")


if __name__ == "__main__":
    main()
