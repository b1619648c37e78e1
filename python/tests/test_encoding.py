"""One rule for text that is not UTF-8, and one for PGN escapes, in every function that
returns text (python/README.md, "Text and encodings"):

- every such function takes ``encoding=`` and ``errors=``, UTF-8 and ``"strict"`` by default
  (as :func:`open` and pandas' ``read_csv``): bytes that do not decode raise
  :class:`UnicodeDecodeError` naming the game, never a silent U+FFFD;
- tag values have PGN's escapes (``\\"``, ``\\\\``) resolved, in ``read_tags`` as in
  ``to_pandas``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, List

import pytest

import chesszip
import chesszip.dask as czd

LATIN1 = "pgn/edge-cases/pychess/mate_in_2.pgn"  # one game's White is "Judit Polg\xe1r" (Latin-1)
ESCAPED = "pgn/edge-cases/kokopu/games__escaped-text__database.pgn"
HEADERS = "pgn/edge-cases/kokopu/pgns__headers__database.pgn"


@pytest.fixture(scope="module")
def latin1(shared: Callable[[str], Path]) -> bytes:
    text = shared(LATIN1).read_bytes()
    assert b"Judit Polg\xe1r" in text, "the shared file changed"
    return text


@pytest.fixture(scope="module")
def latin1_archive(latin1: bytes) -> bytes:
    return chesszip.compress(latin1, 1, block_lines=20)


def polgar_game(archive: bytes) -> int:
    (n,) = [i for i, g in enumerate(chesszip.iter_games(archive, binary=True)) if b"Polg\xe1r" in g]
    return n


def text_readers(archive: bytes, n: int, path: Path) -> "List[Callable[..., object]]":
    """Every function that returns the archive's text, each taking ``encoding``/``errors``."""
    return [
        lambda **kw: chesszip.game(archive, n, **kw),
        lambda **kw: list(chesszip.iter_games(archive, **kw)),
        lambda **kw: chesszip.Archive(archive, **kw).game(n),
        lambda **kw: chesszip.Archive(archive, **kw)[n],
        lambda **kw: list(chesszip.Archive(archive, **kw).games()),
        lambda **kw: chesszip.Archive(archive, **kw).tags(),
        lambda **kw: chesszip.read_tags(archive, **kw),
        lambda **kw: chesszip.to_arrow(archive, **kw),
        lambda **kw: chesszip.to_pandas(archive, **kw),
        lambda **kw: chesszip.to_pandas(archive, moves="movetext", **kw),
        lambda **kw: chesszip.chess_game(archive, n, **kw),
        lambda **kw: list(chesszip.iter_chess_games(archive, **kw)),
        lambda **kw: czd.read_games(str(path), **kw).compute(scheduler="sync"),
        lambda **kw: czd.read_table(str(path), **kw).compute(scheduler="sync"),
        lambda **kw: chesszip.open(path, "rt", **kw).read(),
    ]


def test_every_text_reader_is_strict_by_default_and_names_the_game(latin1_archive: bytes, tmp_path: Path) -> None:
    n = polgar_game(latin1_archive)
    path = tmp_path / "latin1.chz"
    path.write_bytes(latin1_archive)
    for i, read in enumerate(text_readers(latin1_archive, n, path)):
        with pytest.raises(UnicodeDecodeError) as e:
            read()
        message = str(e.value)
        assert f"game {n}" in message or "of block" in message, (i, message)
        assert "encoding=" in message and "errors='replace'" in message, (i, message)
        # Latin-1 decodes every byte: the same call then succeeds.
        read(encoding="latin-1")
        read(errors="replace")


def test_latin1_reads_the_same_everywhere(latin1: bytes, latin1_archive: bytes, tmp_path: Path) -> None:
    n = polgar_game(latin1_archive)
    assert chesszip.game(latin1_archive, n, encoding="latin-1").encode("latin-1") in latin1
    assert chesszip.read_tags(latin1_archive, encoding="latin-1")[n]["White"] == "Judit Polg\u00e1r"
    assert chesszip.to_pandas(latin1_archive, encoding="latin-1")["White"].tolist()[n] == "Judit Polg\u00e1r"
    with chesszip.Archive(latin1_archive, encoding="latin-1") as a:
        assert a.tags()[n]["White"] == "Judit Polg\u00e1r"
        # An Archive's own encoding is to_arrow's default.
        assert chesszip.to_arrow(a).column("White").to_pylist()[n] == "Judit Polg\u00e1r"
        assert a.chess_game(n).headers["White"] == "Judit Polg\u00e1r"
    path = tmp_path / "latin1.chz"
    path.write_bytes(latin1_archive)
    df = czd.read_table(str(path), encoding="latin-1").compute(scheduler="sync")
    assert "Judit Polg\u00e1r" in df["White"].tolist()
    assert "".join(czd.read_games(str(path), encoding="latin-1").compute(scheduler="sync")).encode("latin-1") == latin1
    # errors="replace": the same replacement character in read_tags and to_pandas.
    replaced = "Judit Polg\ufffdr"
    assert chesszip.read_tags(latin1_archive, errors="replace")[n]["White"] == replaced
    assert chesszip.to_pandas(latin1_archive, errors="replace")["White"].tolist()[n] == replaced


def test_read_tags_and_to_pandas_resolve_escapes_alike(shared: Callable[[str], Path]) -> None:
    archive = chesszip.compress(b'[Event "a \\"q\\""]\n[Site "b\\\\c \\\\\\" \\d"]\n\n1. d4 d5 0-1\n')
    (tags,) = chesszip.read_tags(archive)
    assert tags == {"Event": 'a "q"', "Site": 'b\\c \\" \\d'}
    df = chesszip.to_pandas(archive)
    assert (df["Event"][0], df["Site"][0]) == (tags["Event"], tags["Site"])
    with chesszip.Archive(archive) as a:
        assert a.tags() == [tags]
    archive = chesszip.compress(shared(ESCAPED).read_bytes(), 1)
    (tags,) = chesszip.read_tags(archive)
    assert (tags["Event"], tags["Site"]) == ("Event with a \\ backslash", 'Site with " double-quotes')
    df = chesszip.to_pandas(archive)
    assert (df["Event"][0], df["Site"][0]) == (tags["Event"], tags["Site"])
    # kokopu's header cases: the escaped values alike; an unknown escape is kept as written.
    archive = chesszip.compress(shared(HEADERS).read_bytes(), 1)
    want = ['Special character " (double quote)', "Degenerated \\backslash"]
    assert [e for t in chesszip.read_tags(archive) if (e := t.get("Event")) in want] == want
    assert [e for e in chesszip.to_arrow(archive).column("Event").to_pylist() if e in want] == want
    black = "Special character \\ (backslash)"
    assert black in [t.get("Black") for t in chesszip.read_tags(archive)]
    assert black in chesszip.to_arrow(archive).column("Black").to_pylist()


def test_tables_refuse_surrogates_with_a_way_out(latin1_archive: bytes) -> None:
    # errors="surrogateescape" is a bytes.decode handler like any other, and iter_games takes
    # it; Arrow strings cannot hold its lone surrogates, and pyarrow's own UnicodeEncodeError
    # ("surrogates not allowed") named neither the handler nor what to pass instead.
    assert any("\udce1" in g for g in chesszip.iter_games(latin1_archive, errors="surrogateescape"))
    with pytest.raises(ValueError, match="lone surrogates.*errors='replace'") as e:
        chesszip.to_pandas(latin1_archive, errors="surrogateescape")
    assert not isinstance(e.value, UnicodeError)
    assert chesszip.to_pandas(latin1_archive, errors="backslashreplace")["White"].str.contains("Polg\\xe1r", regex=False).any()


def test_read_tags_says_whether_a_name_or_a_value_is_not_utf8() -> None:
    # A tag name with a Latin-1 byte was reported as "the value of tag Ev\ufffdnt".
    archive = chesszip.compress(b'[Ev\xe9nt "x"]\n[Site "?"]\n\n1. e4 *\n\n[Event "M\xfcller"]\n\n1. d4 *\n', 1)
    with pytest.raises(UnicodeDecodeError, match=r"in the name of tag Ev\\xe9nt of game 0 .*encoding=") as e:
        chesszip.read_tags(archive)
    assert e.value.object == b"Ev\xe9nt"
    assert chesszip.read_tags(archive, encoding="latin-1") == [{"Ev\xe9nt": "x", "Site": "?"}, {"Event": "M\xfcller"}]


def test_dask_retry_with_the_encoding_the_error_names(latin1: bytes, tmp_path: Path) -> None:
    # The error says "pass encoding='latin-1'"; doing so in the same session raised the same
    # error again: the tasks' keys held the block but not the options, and Dask reused what the
    # equal key had computed.
    path = tmp_path / "latin1.chz"
    path.write_bytes(chesszip.compress(latin1, 1, block_lines=50))
    assert len(czd.blocks(str(path))) > 1
    with pytest.raises(UnicodeDecodeError, match="encoding="):
        czd.read_table(str(path)).compute(scheduler="sync")
    df = czd.read_table(str(path), encoding="latin-1").compute(scheduler="sync")
    assert "Judit Polg\xe1r" in set(df["White"])
    with pytest.raises(UnicodeDecodeError, match="encoding="):
        czd.read_games(str(path)).compute(scheduler="sync")
    assert any("Polg\xe1r" in g for g in czd.read_games(str(path), encoding="latin-1").compute(scheduler="sync"))
    texts = czd.read_games(str(path), errors="replace")
    raw = czd.read_games(str(path), binary=True)
    import dask

    t, r = dask.compute(texts, raw, scheduler="sync")
    assert all(isinstance(g, str) for g in t) and all(isinstance(g, bytes) for g in r)


def test_encodings_that_do_not_read_ascii_as_ascii_are_refused(tmp_path: Path) -> None:
    # Games are cut at bytes (line ends, "["): in UTF-16 every game was half characters, and
    # encoding="utf-16" gave UnicodeDecodeError ("truncated data") or garbage, never the games.
    text = '[Event "M\xfcller"]\n\n1. e4 *\n\n'.encode("utf-16")
    with pytest.warns(UnicodeWarning, match="looks like UTF-16LE"):
        archive = chesszip.compress(text, 1)
    path = tmp_path / "utf16.chz"
    path.write_bytes(archive)
    readers = [
        lambda **kw: list(chesszip.iter_games(archive, **kw)),
        lambda **kw: chesszip.game(archive, 0, **kw),
        lambda **kw: chesszip.Archive(archive, **kw),
        lambda **kw: chesszip.read_tags(archive, **kw),
        lambda **kw: list(chesszip.iter_chess_games(archive, **kw)),
        lambda **kw: chesszip.to_pandas(archive, **kw),
        lambda **kw: czd.read_games(str(path), **kw),
        lambda **kw: czd.read_table(str(path), **kw),
    ]
    for encoding in ("utf-16", "utf-32", "cp037"):
        for read in readers:
            with pytest.raises(ValueError, match=f"encoding='{encoding}' does not read ASCII bytes as ASCII.*iconv"):
                read(encoding=encoding)
    with pytest.raises(LookupError):
        chesszip.read_tags(archive, encoding="no-such-encoding")
    # The stream as a whole decodes as it should; and ASCII-compatible encodings still work.
    with chesszip.open(path, "rt", encoding="utf-16") as f:
        assert f.read() == text.decode("utf-16")
    for encoding in ("utf-8", "utf-8-sig", "latin-1", "cp1252", "ascii"):
        chesszip.read_tags(archive, encoding=encoding, errors="replace")


def test_open_rt_names_the_game_and_the_way_out(latin1_archive: bytes, tmp_path: Path) -> None:
    # The io module's error gave an offset in the chunk it had read, no game, no way out.
    n = polgar_game(latin1_archive)
    game = chesszip.game(latin1_archive, n, binary=True)
    path = tmp_path / "latin1.chz"
    path.write_bytes(latin1_archive)
    reads: "List[Callable[..., object]]" = [lambda f: f.read(), lambda f: list(f), lambda f: list(iter(f.readline, "")), lambda f: f.read(100000)]
    for read in reads:
        with chesszip.open(path, "rt") as f, pytest.raises(UnicodeDecodeError) as e:
            read(f)
        message = str(e.value)
        assert f"in game {n} " in message and "encoding=" in message and "errors='replace'" in message, message
        # As iter_games' error: the game's bytes, the position in the game.
        assert e.value.object == game and game[e.value.start : e.value.end] == b"\xe1", message
    with chesszip.open(path, "rt", encoding="latin-1") as f:
        assert "Judit Polg\xe1r" in f.read()
    with chesszip.open(path, "rt", errors="replace") as f:
        assert "Judit Polg\ufffdr" in f.read()


def test_compress_warns_of_utf16_and_keeps_it() -> None:
    text = "e4 e5 Nf3 Nc6 Bb5 a6 1-0\n".encode("utf-16-be") * 40
    with pytest.warns(UnicodeWarning, match=r"looks like UTF-16BE.*iconv -f UTF-16BE -t UTF-8"):
        archive = chesszip.compress(text)
    assert chesszip.decompress(archive) == text
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chesszip.compress(text.decode("utf-16-be").encode())
