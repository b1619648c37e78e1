"""Variations dropped from the ``moves`` column in one pass, however deep they nest.

``to_pandas`` dropped variations by removing the innermost ``( ... )`` pairs again and again,
a pass over the game per nesting level: quadratic, seconds for a hostile game of 16,000 nested
variations. ``_drop_variations`` scans the parentheses once; it must give what the repeated
removal gave, which ``_by_passes`` below keeps as the specification (on small inputs).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Callable

import chesszip
from chesszip._table import _COMMENT, _drop_variations, parse_game

#: Nesting levels of the hostile games: the old passes took seconds here (one pass per level
#: over a 100 KB game); one pass takes milliseconds. No time is asserted, only the result.
DEPTH = 16_000


def _by_passes(body: bytes) -> bytes:
    """The old rule: drop innermost pairs until none is left; if a "(" is then left, every
    parenthesis left becomes a space."""
    while b"(" in body:
        stripped = re.sub(rb"\([^()]*\)", b" ", body)
        if stripped == body:
            stripped = body.replace(b"(", b" ").replace(b")", b" ")
        body = stripped
    return body


def test_deep_nesting_gives_the_main_line(tmp_path: Path) -> None:
    balanced = (
        b'[Event "deep"]\n[Result "1-0"]\n\n1. e4 '
        + b"( 1. d4 { a comment ( } " * DEPTH
        + b")" * DEPTH
        + b" 1... e5 2. Nf3 Nc6 1-0\n\n"
    )
    # One "(" never closed: every parenthesis left becomes a space, so the moves of the
    # variation it opened stay (the other variations, closed inside it, are dropped).
    unclosed = b'[Event "open"]\n\n1. e4 ' + b"( d4 " * DEPTH + b")" * (DEPTH - 1) + b" e5 0-1\n"
    archive = chesszip.compress(balanced + unclosed, 1)
    df = chesszip.to_pandas(archive)
    assert list(df["Event"]) == ["deep", "open"]
    assert [list(m) for m in df["moves"]] == [["e4", "e5", "Nf3", "Nc6"], ["e4", "d4", "e5"]]
    assert list(df["plies"]) == [4, 3]
    assert list(df["result"]) == ["1-0", "0-1"]


def test_one_pass_is_the_old_rule() -> None:
    rng = random.Random(7)
    for _ in range(50_000):
        body = bytes(rng.choice(b"(()) e4") for _ in range(rng.randrange(15)))
        assert _drop_variations(body) == _by_passes(body), body


def test_annotated_games_parse_as_before(shared: Callable[[str], Path]) -> None:
    """Every game of the shared annotated PGN files (variations in variations, comments with
    parentheses): the moves of the one-pass rule are those of the old one."""
    games = 0
    for path in sorted(shared("pgn/edge-cases").glob("*/*.pgn")):
        for text in re.split(rb"\n(?=\[Event )", path.read_bytes()):
            # Latin-1 decodes any byte (pychess/mate_in_2.pgn is Latin-1; the default is strict).
            got = parse_game(text, "latin-1")
            if got is None or b"(" not in got[1]:
                continue
            games += 1
            body = _COMMENT.sub(b" ", got[1])
            assert _drop_variations(body) == _by_passes(body), path
    assert games > 100
