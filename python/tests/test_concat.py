"""Concatenated archives, pickled archives, compressed input and len() through the index."""

import os
import pickle
import shutil
import subprocess

import pytest

import chesszip

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
PGN = os.path.join(ROOT, "tests", "golden", "lichess.pgn")
MOVETEXT = os.path.join(ROOT, "tests", "golden", "movetext.txt")


def _read(path, n=None):
    with open(path, "rb") as f:
        data = f.read()
    if n is not None:
        data = b"".join(data.splitlines(keepends=True)[:n])
    return data


def test_concatenation_reads_every_member(tmp_path):
    pgn = _read(PGN, 400)
    movetext = _read(MOVETEXT, 200)
    parts = [(chesszip.compress(pgn, 1, block_lines=5), pgn), (chesszip.compress(b"x\n", 1), b"x\n"),
             (chesszip.compress(movetext, 1, block_lines=50), movetext)]
    archive = b"".join(a for a, _ in parts)
    text = b"".join(t for _, t in parts)
    assert chesszip.decompress(archive) == text
    assert b"".join(chesszip.iter_games(archive, binary=True)) == text
    a = chesszip.Archive(archive)
    each = [list(chesszip.Archive(p).games(binary=True)) for p, _ in parts]
    expected = [g for member in each for g in member]
    assert list(a.games(binary=True)) == expected
    assert len(a) == len(expected)
    assert chesszip.info(archive).members == 3
    path = tmp_path / "ab.chz"
    path.write_bytes(archive)
    assert len(chesszip.Archive(str(path))) == len(expected)


def test_archive_pickles_as_its_path(tmp_path):
    path = tmp_path / "g.chz"
    path.write_bytes(chesszip.compress(_read(PGN, 300), 1, block_lines=3))
    a = chesszip.Archive(str(path), threads=1)
    b = pickle.loads(pickle.dumps(a))
    assert len(pickle.dumps(a)) < 1000
    assert list(b.games()) == list(a.games())
    assert len(b) == len(a)


@pytest.mark.skipif(shutil.which("zstd") is None, reason="zstd not installed")
def test_compress_decodes_zstd_input_as_the_command_line():
    pgn = _read(PGN, 600)
    zst = subprocess.run(["zstd", "-3", "-c"], input=pgn, stdout=subprocess.PIPE, check=True).stdout
    assert chesszip.compress(zst, 1) == chesszip.compress(pgn, 1)
    assert chesszip.decompress(chesszip.compress(zst, 1)) == pgn
