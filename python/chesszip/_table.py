"""Games as tables: one row per game, PGN tags as typed columns (pyarrow, pandas).

The columns of a table are:

- one per PGN tag, in the order tags first appear: ``WhiteElo``, ``BlackElo``, rating
  differences, ``PlyCount`` and FIDE ids as 64-bit integers; ``Date``, ``UTCDate`` and
  ``EventDate`` as dates; every other tag as a string. A value that does not parse (``"?"``,
  ``"2017.??.??"``; an integer is ASCII digits with an optional sign, nothing else) or does not
  fit a 64-bit integer, and a tag a game lacks, are null. The ``Result`` tag is the ``result``
  column below.
- ``moves``: the main line's moves as a list of SAN strings (comments, variations, NAGs, move
  numbers and ``!``/``?`` glyphs dropped), or with ``moves="movetext"`` a string ``movetext``:
  the game's text after its tags, as written;
- ``plies``: the number of moves of the main line;
- ``result``: the ``Result`` tag, else the result token that ends the moves (null if none).

Movetext archives (one game per line, no tags) give ``moves``/``movetext``, ``plies`` and
``result``. Text that holds neither a tag nor a move nor a result (a blank line, text before
the first game) gives no row. A UTF-8 byte order mark that starts a game's text (the first
game of a file saved with one) is skipped.

Tag values have PGN's escapes resolved (``\\"`` is ``"``), as :func:`chesszip.read_tags`
gives them. Text is decoded as everywhere in the package: ``encoding="utf-8"`` and
``errors="strict"`` by default (a :class:`UnicodeDecodeError` naming the game for bytes that
are not UTF-8; ``encoding="latin-1"`` or ``errors="replace"`` to read them).

A game's tags are those :func:`chesszip.read_tags` and the command line's ``extract --tags``
give it, read by the same native reader (``chesszip::pgn::codec::scan_tags``: the PGN
reader's tags when the game parses, else its leading ``[Name "value"]`` lines), so the two
cannot disagree on malformed tag lines (``[Event "a" extra]``, ``[Event a]``, an unclosed
quote, two tags on a line); a name given twice keeps its first value, and the lines of a
movetext archive have no tags. The moves are parsed in Python (regular expressions over the
text after the game's tag lines); ``docs/notes-dask.md`` has the speed against python-chess.
"""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _native
from ._api import ENCODING, ERRORS, _decode_error, _encoding, _game_n, _limits, _source, _threads, _unescape

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import pyarrow

#: Tags whose values are integers.
INT_TAGS = frozenset(
    {"WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff", "PlyCount", "WhiteFideId", "BlackFideId"}
)
#: Tags whose values are dates (``YYYY.MM.DD``).
DATE_TAGS = frozenset({"Date", "UTCDate", "EventDate"})
#: Columns every table has besides its tags.
DERIVED = ("moves", "plies", "result")

#: The lines before a game's movetext: blank lines and tag lines (a line whose first
#: non-blank bytes are ``[`` and a letter, digit or ``_``, as the game splitter sees them).
_HEAD_LINES = re.compile(rb"(?:[ \t\r]*\n|[ \t]*\[[A-Za-z0-9_][^\n]*(?:\n|\Z))*")
_COMMENT = re.compile(rb"\{[^}]*\}|;[^\n]*")
_PAREN = re.compile(rb"[()]")
_NOISE = re.compile(rb"\$\d+|\d+\.+")
_RESULTS = frozenset({b"1-0", b"0-1", b"1/2-1/2", b"*"})
_DATE = re.compile(r"^(\d{4})\.(\d{2})\.(\d{2})$")
#: An integer tag value: ASCII digits with an optional sign (``int()`` would also take
#: ``"1_500"``, ``" 1500 "`` and non-ASCII digits).
_INT = re.compile(r"[+-]?[0-9]+\Z", re.ASCII)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_BOM = b"\xef\xbb\xbf"


def _int(v: str) -> Optional[int]:
    """``v`` as a 64-bit integer column value: ``None`` unless it is ASCII digits with an
    optional sign and fits in -2**63 ..= 2**63 - 1 (a larger value would make pyarrow raise)."""
    # More than 19 digits never fits (and int() refuses past 4300 digits).
    if _INT.match(v) is None or len(v.lstrip("+-").lstrip("0")) > 19:
        return None
    n = int(v)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


def _date(v: str) -> Optional[datetime.date]:
    m = _DATE.match(v)
    if m is None:
        return None
    try:
        return datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _drop_variations(body: bytes) -> bytes:
    """``body`` without its variations, in one pass over its parentheses (linear in the text
    however deep variations nest): each outermost ``(`` ... ``)`` pair, with every variation
    inside it, becomes one space. Unbalanced text: if a ``(`` is left open, every parenthesis
    left becomes a space; a ``)`` left over with no ``(`` left open stays. This is what
    dropping innermost ``(`` ... ``)`` pairs until none is left gives, without a pass per
    nesting level (16,000 nested variations took seconds)."""
    if b"(" not in body:
        return body
    opened: List[int] = []  # offsets of the "(" not closed yet
    spans: List[Tuple[int, int]] = []  # the outermost pairs closed so far, in order
    for m in _PAREN.finditer(body):
        at = m.start()
        if body[at] == 0x28:  # "("
            opened.append(at)
        elif opened:
            start = opened.pop()
            # The pairs closed inside this one (each popped once: linear overall).
            while spans and spans[-1][0] > start:
                spans.pop()
            spans.append((start, at + 1))
    parts: List[bytes] = []
    end = 0
    for start, stop in spans:
        parts += (body[end:start], b" ")
        end = stop
    parts.append(body[end:])
    out = b"".join(parts)
    return out.replace(b"(", b" ").replace(b")", b" ") if opened else out


def _tags(data: bytes, encoding: str, errors: str) -> Dict[str, str]:
    """The tags of a PGN game's text as :func:`chesszip.read_tags` gives them: the native
    reader's pairs, a repeated name keeping its first value, escapes resolved."""
    tags: Dict[str, str] = {}
    for name, value in _native.scan_tags(data):
        key = name.decode(encoding, errors)
        if key not in tags:
            tags[key] = _unescape(value.decode(encoding, errors))
    return tags


def parse_game(
    text: Union[str, bytes], encoding: str = ENCODING, errors: str = ERRORS, *, pgn: bool = True
) -> Optional[Tuple[Dict[str, str], bytes, List[str], Optional[str]]]:
    """``(tags, movetext, san_moves, result_token)`` of one game's text, ``None`` for text
    holding no game (no tag, move or result); bytes are decoded with ``encoding`` and
    ``errors`` (a ``str`` is taken as it is). ``pgn``: a game of a PGN archive, whose tags
    are read (see the module) and whose movetext is the text after its tag lines; else a
    line of a movetext archive (no tags)."""
    if isinstance(text, str):
        data, encoding, errors = text.encode("utf-8", "surrogatepass"), "utf-8", "surrogatepass"
    else:
        data = text
    tags = _tags(data, encoding, errors) if pgn else {}
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    movetext = data[_HEAD_LINES.match(data).end() :] if pgn else data  # type: ignore[union-attr]
    body = _drop_variations(_COMMENT.sub(b" ", movetext))
    moves: List[str] = []
    result: Optional[str] = None
    for tok in _NOISE.sub(b" ", body).split():
        if tok in _RESULTS:
            result = tok.decode("ascii")
            continue
        tok = tok.rstrip(b"!?")
        if tok:
            moves.append(tok.decode(encoding, errors))
    if not tags and not moves and result is None:
        return None
    return tags, movetext, moves, result


def _column_name(tag: str) -> str:
    """A tag's column: its name, unless it would clash (case-insensitively, as in DuckDB)
    with a derived column."""
    return "tag_" + tag if tag.lower() in ("moves", "movetext", "plies", "result") else tag


def _tag_type(tag: str) -> "pyarrow.DataType":
    import pyarrow as pa

    if tag in INT_TAGS:
        return pa.int64()
    if tag in DATE_TAGS:
        return pa.date32()
    return pa.string()


def schema(tags: Sequence[str], *, moves: str = "san") -> "pyarrow.Schema":
    """The schema of a table with these tag columns (``Result`` excluded: it is ``result``)."""
    import pyarrow as pa

    fields = [pa.field(_column_name(t), _tag_type(t)) for t in tags if t != "Result"]
    if moves == "san":
        fields.append(pa.field("moves", pa.list_(pa.string())))
    else:
        fields.append(pa.field("movetext", pa.string()))
    fields += [pa.field("plies", pa.int64()), pa.field("result", pa.string())]
    return pa.schema(fields)


def _parsed(
    games: Iterable[Union[str, bytes]], encoding: str, errors: str, where: Callable[[int], str], movetext: bool = False, pgn: bool = True
) -> "Iterable[Tuple[Dict[str, str], Union[bytes, str], List[str], Optional[str]]]":
    """:func:`parse_game` of each game that holds one (``movetext``: with the movetext
    stripped and decoded); a :class:`UnicodeDecodeError` names the game (``where(n)`` of the
    ``n``-th, 0-based)."""
    n, text = 0, b""
    try:
        for n, text in enumerate(games):
            p = parse_game(text, encoding, errors, pgn=pgn)
            if p is not None:
                if movetext:
                    # Comments are decoded only here.
                    yield p[0], p[1].strip().decode(encoding, errors), p[2], p[3]
                else:
                    yield p
    except UnicodeDecodeError as e:
        # The piece that failed (a tag value, a move) is decoded again as the whole game, so
        # that the error's position counts from the game's start.
        if isinstance(text, bytes):
            try:
                text.decode(encoding, errors)
            except UnicodeDecodeError as whole:
                e = whole
        raise _decode_error(e, where(n)) from None


def tags_seen(
    games: Iterable[Union[str, bytes]],
    *,
    encoding: str = ENCODING,
    errors: str = ERRORS,
    where: Callable[[int], str] = _game_n,
    pgn: bool = True,
) -> List[str]:
    """The tag names of these games (``pgn``: of a PGN archive), in order of first appearance."""
    seen: Dict[str, None] = {}
    for p in _parsed(games, encoding, errors, where, pgn=pgn):
        for name in p[0]:
            seen.setdefault(name, None)
    return list(seen)


def table_of_games(
    games: Iterable[Union[str, bytes]],
    *,
    moves: str = "san",
    tags: Optional[Sequence[str]] = None,
    encoding: str = ENCODING,
    errors: str = ERRORS,
    where: Callable[[int], str] = _game_n,
    pgn: bool = True,
) -> "pyarrow.Table":
    """The table of these games' texts. ``tags``: the tag columns (others are dropped, missing
    ones null); ``None``: every tag seen, in order of first appearance. ``encoding`` and
    ``errors`` decode the games' bytes; ``where(n)`` names the ``n``-th game (0-based) in a
    :class:`UnicodeDecodeError`; ``pgn``: games of a PGN archive, else lines of a movetext
    archive (no tags)."""
    import pyarrow as pa

    if moves not in ("san", "movetext"):
        raise ValueError(f"moves must be 'san' or 'movetext', not {moves!r}")
    _encoding(encoding)
    parsed = list(_parsed(games, encoding, errors, where, movetext=moves == "movetext", pgn=pgn))
    if tags is None:
        seen: Dict[str, None] = {}
        for t, _, _, _ in parsed:
            for name in t:
                seen.setdefault(name, None)
        tags = list(seen)
    tags = list(dict.fromkeys(tags))
    tags = [t for t in tags if t != "Result"]
    columns: Dict[str, List[Any]] = {}
    for tag in tags:
        values = [t.get(tag) for t, _, _, _ in parsed]
        if tag in INT_TAGS:
            columns[tag] = [None if v is None else _int(v) for v in values]
        elif tag in DATE_TAGS:
            columns[tag] = [None if v is None else _date(v) for v in values]
        else:
            columns[tag] = values
    sch = schema(tags, moves=moves)
    arrays: List[Any] = [columns[t] for t in tags]
    if moves == "san":
        arrays.append([m for _, _, m, _ in parsed])
    else:
        arrays.append([mt for _, mt, _, _ in parsed])
    arrays.append([len(m) for _, _, m, _ in parsed])
    arrays.append([t.get("Result", r) for t, _, _, r in parsed])
    try:
        columns_ = [pa.array(a, type=f.type) for a, f in zip(arrays, sch)]
    except UnicodeEncodeError as e:
        # Only errors="surrogateescape"/"surrogatepass" give such strings: pyarrow's own
        # error named neither the handler nor a way out.
        raise ValueError(
            f"the text holds lone surrogates ({e.object[e.start:e.end]!r}; errors={errors!r}), which Arrow strings "
            "cannot hold: pass errors='replace' or 'backslashreplace', or encoding='latin-1'"
        ) from None
    return pa.Table.from_arrays(columns_, schema=sch)


def pandas_of(table: "pyarrow.Table") -> "pandas.DataFrame":
    """``table`` as pandas with pyarrow-backed, nullable dtypes (Elo stays integer with nulls)."""
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def to_arrow(
    source: Any,
    *,
    moves: str = "san",
    tags: Optional[Sequence[str]] = None,
    threads: int = 0,
    limits: Any = None,
    encoding: Optional[str] = None,
    errors: Optional[str] = None,
) -> "pyarrow.Table":
    """One row per game of an archive as a :class:`pyarrow.Table` (see the module's columns).

    :param source: an :class:`chesszip.Archive`, a path, or the archive's bytes.
    :param moves: ``"san"`` (a list of SAN moves) or ``"movetext"`` (the text after the tags).
    :param tags: the tag columns; ``None``: every tag seen, in order of first appearance.
    :param encoding: how the games' text is decoded; ``None``: an :class:`chesszip.Archive`'s
        own, else ``"utf-8"``.
    :param errors: as for :meth:`bytes.decode`; ``None``: an :class:`chesszip.Archive`'s own,
        else ``"strict"`` (as everywhere in the package).
    :raises UnicodeDecodeError: (``errors="strict"``) for a game whose tags, moves (or, with
        ``moves="movetext"``, comments) are not ``encoding`` text; the message names the game.
    :raises ValueError: for ``errors="surrogateescape"`` on text that is not ``encoding``: Arrow
        strings cannot hold lone surrogates (``"replace"`` or ``"backslashreplace"`` can).
    """
    from ._games import Archive

    if isinstance(source, Archive):
        games = source.games(binary=True)
        pgn = source.format == "pgn"
        encoding = source.encoding if encoding is None else encoding
        errors = source.errors if errors is None else errors
    else:
        reader = _native.GameReader(_source(source), threads=_threads(threads), limits=_limits(limits))
        games, pgn = reader, reader.format == "pgn"
    return table_of_games(games, moves=moves, tags=tags, encoding=encoding or ENCODING, errors=errors or ERRORS, pgn=pgn)


def to_pandas(
    source: Any,
    *,
    moves: str = "san",
    tags: Optional[Sequence[str]] = None,
    threads: int = 0,
    limits: Any = None,
    encoding: Optional[str] = None,
    errors: Optional[str] = None,
) -> "pandas.DataFrame":
    """:func:`to_arrow` as a :class:`pandas.DataFrame` with pyarrow-backed dtypes."""
    return pandas_of(to_arrow(source, moves=moves, tags=tags, threads=threads, limits=limits, encoding=encoding, errors=errors))
