"""Games one at a time: iteration in order, random access, python-chess objects.

A *game* is one line in a movetext archive (with its line end; a line that is not a game
counts too, so game ``n`` is line ``n + 1`` of the text) and one PGN game in a PGN archive (its
tags, movetext and the blank lines after it; text before the first game belongs to it).
Joining all games gives back the archive's text exactly.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Literal, Optional, Tuple, Union, overload

from . import _native
from ._api import ENCODING, ERRORS, ArchiveInfo, Limits, Source, _decode_error, _encoding, _game_n, _limits, _source, _threads, _unescape, info

if TYPE_CHECKING:  # pragma: no cover
    import chess.pgn

def _decoded(games: Iterable[bytes], encoding: str, errors: str, where: Callable[[int], str] = _game_n) -> Iterator[str]:
    """``games`` decoded; a :class:`UnicodeDecodeError` names the game (``where(n)`` of the
    ``n``-th, 0-based)."""
    n = 0
    try:
        for n, data in enumerate(games):
            yield data.decode(encoding, errors)
    except UnicodeDecodeError as e:
        raise _decode_error(e, where(n)) from None


def _decode(data: bytes, encoding: str, errors: str, n: int) -> str:
    """Game ``n``'s bytes decoded; a :class:`UnicodeDecodeError` names the game."""
    try:
        return data.decode(encoding, errors)
    except UnicodeDecodeError as e:
        raise _decode_error(e, f"game {n}") from None


def _to_chess(text: str) -> "Optional[chess.pgn.Game]":
    """The first game in ``text`` read by python-chess (``None`` if it holds none)."""
    try:
        import chess.pgn
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("python-chess is needed for Game objects: pip install chess") from e
    return chess.pgn.read_game(io.StringIO(text))


class Archive:
    """An archive opened for reading its games.

    Iterating gives the games' text in order, streamed with bounded memory (blocks are decoded
    ahead in parallel, with the GIL released); ``archive[n]`` and :meth:`game` give game ``n``
    by decoding only the blocks that hold it (in a PGN archive, whose index does not count
    games, the first access to a game decodes the blocks before it once). Every block decoded
    is checked: a damaged one raises :class:`CorruptArchiveError` naming it.

    :param source: a path, the archive's bytes, or a binary file object (read to its end).
    :param threads: worker threads; 0 means one per core.
    :param encoding: how text (games, tags) is decoded (``"utf-8"`` by default; e.g.
        ``"latin-1"`` for old ChessBase exports).
    :param errors: as for :meth:`bytes.decode`: ``"strict"`` (the default everywhere in the
        package) raises :class:`UnicodeDecodeError` naming the game, ``"replace"`` gives
        U+FFFD for each bad byte.
    :param limits: ceilings for an archive from elsewhere (:class:`Limits`); a limit exceeded
        raises :class:`DecodeLimitError`.
    """

    def __init__(
        self, source: Source, *, threads: int = 0, encoding: str = ENCODING, errors: str = ERRORS, limits: Optional[Limits] = None
    ) -> None:
        """Open the archive; reads its header and index."""
        self._source = _source(source)
        self._threads = _threads(threads)
        self._limits = _limits(limits)
        self.encoding = _encoding(encoding)
        self.errors = errors
        self._reader: Optional[_native.GameReader] = _native.GameReader(self._source, threads=threads, limits=self._limits)
        self._len: Optional[int] = self._reader.len_hint

    def _random(self) -> _native.GameReader:
        if self._reader is None:
            raise ValueError("I/O operation on closed archive")
        return self._reader

    @property
    def format(self) -> str:
        """``"movetext"`` or ``"pgn"``."""
        return self._random().format

    def info(self) -> ArchiveInfo:
        """The archive's statistics (see :func:`chesszip.info`)."""
        self._random()
        return info(self._source)

    @overload
    def games(self, *, binary: Literal[False] = ...) -> Iterator[str]: ...
    @overload
    def games(self, *, binary: Literal[True]) -> Iterator[bytes]: ...

    def games(self, *, binary: bool = False) -> Union[Iterator[str], Iterator[bytes]]:
        """All games in order, as text (``binary=True``: as bytes); independent of other
        iterations and of random access."""
        self._random()
        reader = _native.GameReader(self._source, threads=self._threads, limits=self._limits)
        return iter(reader) if binary else _decoded(reader, self.encoding, self.errors)

    def tags(self) -> "List[Dict[str, str]]":
        """Every game's tags, in order, a dict per game, without the moves where the archive
        allows it (see :func:`chesszip.read_tags`), decoded with the archive's ``encoding`` and
        ``errors``, PGN escapes resolved."""
        self._random()
        games = _native.read_tags(self._source, threads=self._threads, limits=self._limits)
        return _tag_dicts(games, self.encoding, self.errors)

    def __iter__(self) -> Iterator[str]:
        """All games in order, as text (see :meth:`games`)."""
        return self.games()

    def chess_games(self) -> "Iterator[chess.pgn.Game]":
        """All games as python-chess :class:`chess.pgn.Game` objects (needs python-chess).

        A game whose text holds nothing python-chess reads as a game (a blank line) is left out.
        """
        for text in self.games():
            g = _to_chess(text)
            if g is not None:
                yield g

    @overload
    def game(self, n: int, *, binary: Literal[False] = ...) -> str: ...
    @overload
    def game(self, n: int, *, binary: Literal[True]) -> bytes: ...

    def game(self, n: int, *, binary: bool = False) -> Union[str, bytes]:
        """Game ``n`` (0-based; negative counts from the end).

        :raises IndexError: when the archive has no game ``n``.
        """
        if n < 0:
            n += len(self)
            if n < 0:
                raise IndexError("game index out of range")
        data = self._random().game(n)
        if data is None:
            raise IndexError(f"game index out of range: the archive holds {self._random().position} games")
        return data if binary else _decode(data, self.encoding, self.errors, n)

    def __getitem__(self, n: int) -> str:
        """Game ``n`` as text (see :meth:`game`)."""
        if not isinstance(n, int):
            raise TypeError("archive indices must be integers")
        return self.game(n)

    def chess_game(self, n: int) -> "chess.pgn.Game":
        """Game ``n`` as a python-chess :class:`chess.pgn.Game` (needs python-chess).

        :raises IndexError: when the archive has no game ``n``.
        :raises ValueError: when its text holds no game python-chess can read.
        """
        g = _to_chess(self.game(n))
        if g is None:
            raise ValueError(f"game {n} holds nothing python-chess reads as a game")
        return g

    def __len__(self) -> int:
        """The number of games. For movetext the index tells; for PGN the index tells where
        it can (blocks cut at game boundaries), and only the other blocks are decoded."""
        if self._len is None:
            self._len = _native.count_games(self._source, threads=self._threads, limits=self._limits)
        return self._len

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickles as its source (the path, or the archive's bytes) and options, so that an
        archive can be sent to other processes (Dask workers): each opens it anew."""
        if self._reader is None:
            raise ValueError("I/O operation on closed archive")
        return (_reopen, (self._source, self._threads, self.encoding, self.errors, self._limits))

    def close(self) -> None:
        """Release the archive (its bytes or file)."""
        self._reader = None

    def __enter__(self) -> "Archive":
        """The archive itself; :meth:`close` at the end of the ``with`` block."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the archive."""
        self.close()


@overload
def iter_games(
    source: Source,
    *,
    binary: Literal[False] = ...,
    threads: int = ...,
    encoding: str = ...,
    errors: str = ...,
    limits: Optional[Limits] = ...,
) -> Iterator[str]: ...
@overload
def iter_games(
    source: Source, *, binary: Literal[True], threads: int = ..., encoding: str = ..., errors: str = ..., limits: Optional[Limits] = ...
) -> Iterator[bytes]: ...


def iter_games(
    source: Source,
    *,
    binary: bool = False,
    threads: int = 0,
    encoding: str = ENCODING,
    errors: str = ERRORS,
    limits: Optional[Limits] = None,
) -> Union[Iterator[str], Iterator[bytes]]:
    """The games of an archive in order, as text (``binary=True``: bytes), streamed.

    ``"".join(iter_games(a)) == decompress(a).decode()``. Blocks are decoded ahead in parallel
    with the GIL released, a few per thread at a time.

    :param source: a path, the archive's bytes, or a binary file object (read to its end).
    :param encoding: how the games are decoded (``"utf-8"`` by default).
    :param errors: as for :meth:`bytes.decode` (``"strict"`` by default, as everywhere in the
        package).
    :param limits: ceilings for an archive from elsewhere (:class:`Limits`).
    :raises CorruptArchiveError: (while iterating) at a damaged block, after the games before it.
    :raises DecodeLimitError: (while iterating) when a limit would be exceeded.
    :raises UnicodeDecodeError: (while iterating, ``errors="strict"``) at a game that is not
        ``encoding`` text; the message names the game.
    """
    if not binary:
        _encoding(encoding)
    reader = _native.GameReader(_source(source), threads=_threads(threads), limits=_limits(limits))
    return iter(reader) if binary else _decoded(reader, encoding, errors)


def read_tags(
    source: Source, *, threads: int = 0, encoding: str = ENCODING, errors: str = ERRORS, limits: Optional[Limits] = None
) -> "List[Dict[str, str]]":
    """Every game's tags, in order, as a dict per game (name to value, in the order of the
    game's tag section; a name given twice keeps its first value), without the moves.

    In a PGN archive of codings 5 to 7 each block's tags are coded before its moves and are
    read without decoding a single move: filtering or counting games by their tags runs many
    times faster than reading the games. Archives of earlier codings, blocks of codings 6 and
    7 (7 is what this release writes) with ``ECO``, ``Opening`` or ``UTCTime`` tags (coded
    after the moves) and blocks of coding 7 with games copied from earlier ones are decoded
    whole, and so is each archive's first block (only its text tells
    whether a UTF-8 BOM starts the input, which belongs to game 1). A game without tags (and every line of a movetext archive) gives ``{}``.
    Values are the tags' strings with PGN's two escapes resolved (``\\"`` is ``"``, ``\\\\`` is
    ``\\``), as in :func:`chesszip.to_pandas`'s columns. (python-chess 1.11's ``headers`` keep
    the escapes as written.)

    :param source: a path, the archive's bytes, or a binary file object (read to its end).
    :param encoding: how names and values are decoded (``"utf-8"`` by default).
    :param errors: as for :meth:`bytes.decode` (``"strict"`` by default, as everywhere in the
        package).
    :param limits: ceilings for an archive from elsewhere (:class:`Limits`).
    :raises CorruptArchiveError: at a damaged block.
    :raises UnicodeDecodeError: (``errors="strict"``) for a tag that is not ``encoding`` text;
        the message names the game and the tag.
    """
    _encoding(encoding)
    games = _native.read_tags(_source(source), threads=_threads(threads), limits=_limits(limits))
    return _tag_dicts(games, encoding, errors)


def _tag_dicts(games: "List[List[Tuple[bytes, bytes]]]", encoding: str, errors: str) -> "List[Dict[str, str]]":
    """The native tag pairs as a dict per game (a repeated name keeps its first value; PGN
    escapes in values resolved)."""
    out: List[Dict[str, str]] = []
    for n, tags in enumerate(games):
        d: Dict[str, str] = {}
        for name, value in tags:
            try:
                key = name.decode(encoding, errors)
            except UnicodeDecodeError as e:
                raise _decode_error(e, f"the name of tag {name.decode('ascii', 'backslashreplace')} of game {n}") from None
            if key not in d:
                try:
                    d[key] = _unescape(value.decode(encoding, errors))
                except UnicodeDecodeError as e:
                    raise _decode_error(e, f"the value of tag {key} of game {n}") from None
        out.append(d)
    return out


def iter_chess_games(source: Source, *, threads: int = 0, encoding: str = ENCODING, errors: str = ERRORS) -> "Iterator[chess.pgn.Game]":
    """The games of an archive as python-chess :class:`chess.pgn.Game` objects (needs
    python-chess); text holding no game (a blank line) is left out."""
    for text in iter_games(source, threads=threads, encoding=encoding, errors=errors):
        g = _to_chess(text)
        if g is not None:
            yield g


def game(source: Source, n: int, *, binary: bool = False, threads: int = 0, encoding: str = ENCODING, errors: str = ERRORS) -> Union[str, bytes]:
    """Game ``n`` (0-based) of an archive, decoding only the blocks that hold it.

    :raises IndexError: when the archive has no game ``n``.
    """
    with Archive(source, threads=threads, encoding=encoding, errors=errors) as a:
        return a.game(n, binary=True) if binary else a.game(n)


def chess_game(source: Source, n: int, *, threads: int = 0, encoding: str = ENCODING, errors: str = ERRORS) -> "chess.pgn.Game":
    """Game ``n`` (0-based) of an archive as a python-chess :class:`chess.pgn.Game`."""
    with Archive(source, threads=threads, encoding=encoding, errors=errors) as a:
        return a.chess_game(n)


def _reopen(source: Any, threads: int, encoding: str, errors: str, limits: Optional[Limits] = None) -> "Archive":
    """An :class:`Archive` opened again from what :meth:`Archive.__reduce__` pickled."""
    return Archive(source, threads=threads, encoding=encoding, errors=errors, limits=limits)
