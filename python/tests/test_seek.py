"""ChesszipFile's seek/tell and "ab" mode, against gzip on the same text.

The same sequence of seek, read, readline and tell calls must give the same results on
``chesszip.open`` of an archive as on ``gzip.open`` of the same text (gzip rewinds and decodes
again; chesszip decodes only the block that holds the new position, found through the index).
"""

from __future__ import annotations

import gzip
import io
import random
from pathlib import Path
from typing import Callable, List, Tuple

import pytest

import chesszip
from chesszip import _native

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"


def _same_calls(text: bytes, archive_path: Path, seed: int, calls: int) -> None:
    """Random seeks (every whence, before the start, past the end), reads of every size and
    readlines, on gzip and chesszip side by side; every result and tell() must agree."""
    rng = random.Random(seed)
    size = len(text)
    with gzip.open(io.BytesIO(gzip.compress(text, 1))) as g, chesszip.open(archive_path) as c:
        assert c.seekable() and g.seekable()
        for i in range(calls):
            op = rng.randrange(6)
            if op == 0:
                call: Tuple = ("seek", rng.randrange(-100, size + 100))
            elif op == 1:
                call = ("seek", rng.randrange(-3 * size // 10, 3 * size // 10), io.SEEK_CUR)
            elif op == 2:
                call = ("seek", rng.randrange(-size - 100, 100), io.SEEK_END)
            elif op == 3:
                call = ("read", rng.choice([0, 1, 65_536, 200_000, -1]) if rng.random() < 0.2 else rng.randrange(1, 5_000))
            elif op == 4:
                call = ("readline",)
            else:
                call = ("readinto", rng.randrange(1, 3_000))
            if call[0] == "readinto":
                gb, cb = bytearray(call[1]), bytearray(call[1])
                got = (g.readinto(gb), bytes(gb)), (c.readinto(cb), bytes(cb))
            else:
                got = getattr(g, call[0])(*call[1:]), getattr(c, call[0])(*call[1:])
            assert got[0] == got[1], f"call {i}: {call}"
            assert g.tell() == c.tell(), f"call {i}: {call}"
        c.seek(0)
        assert c.read() == text


def _write(path: Path, archive: bytes) -> Path:
    path.write_bytes(archive)
    return path


def test_seek_matches_gzip_across_blocks(tmp_path: Path, shared: Callable[[str], Path]) -> None:
    text = shared("pgn/lichess/2017-05.pgn").read_bytes()
    # Blocks cut inside lines and games, so that seeks land everywhere in a block.
    archive = _native.compress(text, 1, block_bytes=20_000)
    assert len(_native.block_list(archive)) > 25
    _same_calls(text, _write(tmp_path / "a.chz", archive), seed=1, calls=800)


def test_seek_matches_gzip_in_a_concatenation(tmp_path: Path, shared: Callable[[str], Path]) -> None:
    """Members of every kind: PGN blocks, a raw (whole-input) member, coding-2 references."""
    pgn = shared("pgn/lichess/2017-05.pgn").read_bytes()[:150_000]
    tiny = b"e4 e5 Nf3 1-0\n"
    dups = (GOLDEN / "dups.txt").read_bytes()
    parts = [
        (_native.compress(pgn, 1, block_bytes=7_000), pgn),
        (chesszip.compress(tiny, 1), tiny),
        ((GOLDEN / "dups.txt.l2.c2.chz").read_bytes(), dups),
    ]
    assert chesszip.info(parts[1][0]).raw is not None  # the raw form: no index of its own
    assert chesszip.info(parts[2][0]).references > 0
    archive = b"".join(a for a, _ in parts)
    text = b"".join(t for _, t in parts)
    assert chesszip.info(archive).members == 3
    _same_calls(text, _write(tmp_path / "cat.chz", archive), seed=2, calls=600)


def test_seek_decodes_only_the_block_it_needs(tmp_path: Path, shared: Callable[[str], Path]) -> None:
    """With block 0 damaged, text after a seek past it reads (block 0 is not decoded); going
    back to it raises the damage."""
    text = shared("pgn/lichess/2017-05.pgn").read_bytes()
    archive = bytearray(_native.compress(text, 1, block_bytes=50_000))
    lengths = [n for _, _, n in _native.block_list(bytes(archive))]
    archive[200] ^= 0xFF  # inside block 0's coded data (the header and index are intact)
    path = _write(tmp_path / "damaged.chz", bytes(archive))
    with pytest.raises(chesszip.CorruptArchiveError, match="block 0"):
        chesszip.decompress(bytes(archive))
    with chesszip.open(path) as f:
        at = lengths[0] + 123
        assert f.seek(at) == at and f.tell() == at
        assert f.read(1_000) == text[at : at + 1_000]
        assert f.seek(-500, io.SEEK_END) == len(text) - 500
        assert f.read() == text[-500:]
        f.seek(10)
        with pytest.raises(chesszip.CorruptArchiveError, match="block 0"):
            f.read(1)


def test_text_mode_tell_and_seek(tmp_path: Path, shared: Callable[[str], Path]) -> None:
    """io.TextIOWrapper's tell() cookies work, as with gzip.open(..., "rt")."""
    text = shared("pgn/lichess/2017-05.pgn").read_bytes()
    path = _write(tmp_path / "t.chz", _native.compress(text, 1, block_bytes=30_000))
    with chesszip.open(path, "rt") as c, gzip.open(io.BytesIO(gzip.compress(text, 1)), "rt") as g:
        marks: List[Tuple[int, int]] = []
        for n in range(3_000):
            if n % 400 == 0:
                marks.append((c.tell(), g.tell()))
            assert c.readline() == g.readline()
        for cm, gm in reversed(marks):
            c.seek(cm)
            g.seek(gm)
            assert c.read(10_000) == g.read(10_000)


def test_write_mode_is_not_seekable(tmp_path: Path) -> None:
    with chesszip.open(tmp_path / "w.chz", "wb") as f:
        f.write(b"e4 e5 1-0\n")
        assert not f.seekable() and f.tell() == 10
        with pytest.raises(io.UnsupportedOperation):
            f.seek(0)


def test_append_mode_adds_a_member(tmp_path: Path, shared: Callable[[str], Path]) -> None:
    """"ab" writes a new member after the archive, as gzip's "ab" writes a new gzip member:
    the file reads as both texts, and its bytes are the two archives one after the other."""
    pgn = shared("pgn/lichess/2017-05.pgn").read_bytes()[:60_000]
    movetext = b"e4 e5 Nf3 Nc6 1-0\nd4 d5 c4 1/2-1/2\n"
    path, gz = tmp_path / "ab.chz", tmp_path / "ab.gz"
    with chesszip.open(path, "ab") as f, gzip.open(gz, "ab") as g:  # "ab" creates a missing file
        f.write(pgn)
        g.write(pgn)
    with chesszip.open(path, "at") as t, gzip.open(gz, "at") as gt:
        t.write(movetext.decode())
        gt.write(movetext.decode())
    assert path.read_bytes() == chesszip.compress(pgn) + chesszip.compress(movetext)
    assert chesszip.info(path).members == 2
    with chesszip.open(path) as f, gzip.open(gz) as g:
        assert f.read() == g.read() == pgn + movetext
    with open(path, "ab") as raw, chesszip.open(raw, "ab") as f:  # a file object given
        f.write(b"c4 1-0\n")
    assert chesszip.decompress(path.read_bytes()) == pgn + movetext + b"c4 1-0\n"
