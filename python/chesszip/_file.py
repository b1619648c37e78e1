"""Archives as file objects: :class:`ChesszipFile` and :func:`open`, as in :mod:`gzip`."""

from __future__ import annotations

import bisect
import builtins
import io
import os
from typing import IO, Any, BinaryIO, Optional, Union

from . import _native
from ._api import ChesszipCompressor, PathLike, _bytes, _decode_error, _threads, load_weights
from ._native import DEFAULT_LEVEL

#: A file name (``str``, ``bytes`` or :class:`os.PathLike`) or a binary file object.
FileArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", BinaryIO]


class _BlockRaw(io.RawIOBase):
    """The expanded text of an archive as a raw stream, block by block, seekable through the
    archive's index: a seek decodes only the block that holds the new position (and the
    blocks decoded ahead of it). :class:`io.BufferedReader` buffers it, as :mod:`gzip` buffers
    its reader. Not the standard library's ``_compression.DecompressReader``: it seeks back by
    decoding again from the start, and the module is private (Python 3.14 moved it to
    ``compression._common._streams``)."""

    def __init__(self, reader: _native.BlockReader) -> None:
        self._reader: Optional[_native.BlockReader] = reader
        #: ``_starts[k]``: the text offset of block ``k``'s first byte; the last item is the
        #: text's length (from the index, no block decoded).
        self._starts = [0]
        for n in reader.text_lengths():
            self._starts.append(self._starts[-1] + n)
        self._block = memoryview(b"")
        self._block_start = 0  # text offset of self._block's first byte
        self._pos = 0  # in self._block
        self._next = 0  # the block reader.read_block() returns next
        self._skip = 0  # bytes to drop from the next block read (after a seek into it)
        self._offset = 0  # text offset of the next byte returned

    def readable(self) -> bool:
        """True."""
        return True

    def seekable(self) -> bool:
        """True: the index gives every block's place in the text."""
        return True

    def _next_block(self) -> bool:
        """Move to the next non-empty block; False at the end."""
        while self._pos >= len(self._block):
            if self._reader is None or self._next >= len(self._starts) - 1:
                return False
            block = self._reader.read_block()
            k = self._next
            if block is None or len(block) != self._starts[k + 1] - self._starts[k]:
                raise _native.CorruptArchiveError(f"block {k}: its text is not the length its index entry records")
            self._next += 1
            self._block, self._block_start, self._pos = memoryview(block), self._starts[k], self._skip
            self._skip = 0
        return True

    def readinto(self, b: Any) -> int:
        """Copy text of the current block (decoding the next when it is used up) into ``b``."""
        if not self._next_block():
            return 0
        with memoryview(b) as view, view.cast("B") as out:
            n = min(len(out), len(self._block) - self._pos)
            out[:n] = self._block[self._pos : self._pos + n]
        self._pos += n
        self._offset += n
        return n

    def readall(self) -> bytes:
        """The rest of the text."""
        parts = []
        while self._next_block():
            parts.append(self._block[self._pos :].tobytes())
            self._offset += len(self._block) - self._pos
            self._pos = len(self._block)
        return b"".join(parts)

    def tell(self) -> int:
        """The text offset of the next byte returned."""
        return self._offset

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move to a text offset, as :class:`gzip.GzipFile` does: from the start, the current
        position or the end (``whence`` 0, 1, 2); a position before the start is the start,
        one past the end is the end. Returns the new offset. No block is decoded here: the
        next read decodes the block that holds the offset, unless it is the current one."""
        if self._reader is None:
            raise ValueError("I/O operation on closed file")
        if whence == io.SEEK_SET:
            target = offset
        elif whence == io.SEEK_CUR:
            target = self._offset + offset
        elif whence == io.SEEK_END:
            target = self._starts[-1] + offset
        else:
            raise ValueError(f"invalid whence ({whence}, should be {io.SEEK_SET}, {io.SEEK_CUR} or {io.SEEK_END})")
        target = max(0, min(target, self._starts[-1]))
        if self._block_start <= target < self._block_start + len(self._block):
            self._pos = target - self._block_start
        else:
            # The last block starting at or before the target (an empty block is skipped
            # when read); the end when the target is the text's length.
            k = bisect.bisect_right(self._starts, target) - 1 if target < self._starts[-1] else len(self._starts) - 1
            self._reader.seek(k)
            self._next, self._skip = k, target - self._starts[k]
            self._block, self._block_start, self._pos = memoryview(b""), target, 0
        self._offset = target
        return target

    def close(self) -> None:
        """Drop the reader and the current block."""
        self._reader = None
        self._block = memoryview(b"")
        super().close()


class ChesszipFile(io.BufferedIOBase):
    """A chesszip archive as a binary file object, like :class:`gzip.GzipFile`.

    Reading (mode ``"rb"``) gives the archive's text; its blocks are decoded ahead in parallel
    and each is checked, so a damaged block raises :class:`CorruptArchiveError` naming it, after
    the text of the blocks before it. A file opened for reading is seekable: :meth:`seek` and
    :meth:`tell` count bytes of text, as in :class:`gzip.GzipFile`, but a seek does not decode
    the text before the new position: the index tells which block holds it, and only that
    block (with the blocks decoded ahead after it) is decoded. Writing (``"wb"`` or ``"xb"``)
    compresses what is written, on a thread of its own, into exactly the archive the command
    line would make of it; the archive is complete when the file is closed. ``"ab"`` writes
    such an archive at the end of the file: a concatenated archive, which reads as the text of
    its members one after the other (as ``cat a.chz b.chz`` makes). A file opened for writing
    is not seekable. A file that is not an archive, or whose index is damaged, raises
    :class:`CorruptArchiveError` when opened for reading.

    :param filename: a path, or a binary file object to read the archive from (to its end) or
        to write it to (it is not closed).
    :param mode: ``"r"``, ``"rb"``, ``"w"``, ``"wb"``, ``"x"``, ``"xb"``, ``"a"`` or ``"ab"``.
    :param level: compression level (writing), 1 to 10.
    :param block_lines: lines or games per block (writing); ``None``: the level's default.
    :param threads: worker threads; 0 means one per core.
    :param format: ``"movetext"``, ``"pgn"`` or ``None`` to detect it (writing).
    :param weights: level 10's weights file (:func:`chesszip.load_weights`), to write at level
        10 or to read an archive made at level 10.

    As with :func:`gzip.open`, closing the file (also when an exception leaves a ``with``
    block) ends the archive: it is then a valid archive of what was written so far. For
    all-or-nothing output, write to a temporary name and :func:`os.replace` it when done (the
    command line does this itself).
    """

    def __init__(
        self,
        filename: FileArg,
        mode: str = "rb",
        *,
        level: int = DEFAULT_LEVEL,
        block_lines: Optional[int] = None,
        threads: int = 0,
        format: Optional[str] = None,
        weights: Optional[PathLike] = None,
    ) -> None:
        """Open an archive for reading or writing; see the class for the parameters."""
        if mode not in ("r", "rb", "w", "wb", "x", "xb", "a", "ab"):
            raise ValueError(f"invalid mode {mode!r}: use 'rb', 'wb', 'xb' or 'ab' (or 'rt', 'wt', 'xt', 'at' with chesszip.open)")
        self._fp: Optional[IO[bytes]] = None
        self._close_fp = False
        self._raw: Optional[_BlockRaw] = None
        self._buffer: Optional[io.BufferedReader] = None
        self._compressor: Optional[ChesszipCompressor] = None
        self._written = 0
        self.name: Union[str, bytes] = ""
        self.mode = "rb" if mode.startswith("r") else "wb"
        is_path = isinstance(filename, (str, bytes, os.PathLike))
        if is_path:
            self.name = os.fspath(filename)  # type: ignore[arg-type]
        elif hasattr(filename, "name") and isinstance(getattr(filename, "name"), (str, bytes)):
            self.name = filename.name
        if self.mode == "rb":
            if weights is not None:
                load_weights(weights)
            #: The archive (its path, or its bytes) and the threads, to find a game again.
            self._source: Union[str, bytes] = os.fsdecode(filename) if is_path else _bytes(filename.read())  # type: ignore[union-attr,arg-type]
            self._threads = _threads(threads)
            reader = _native.BlockReader(self._source, threads=self._threads)
            self._raw = _BlockRaw(reader)
            self._buffer = io.BufferedReader(self._raw, buffer_size=1 << 16)
        else:
            self._compressor = ChesszipCompressor(
                level, block_lines=block_lines, threads=threads, format=format, weights=weights
            )
            if is_path:
                self._fp = builtins.open(filename, mode[0] + "b")  # type: ignore[arg-type]
                self._close_fp = True
            else:
                self._fp = filename  # type: ignore[assignment]

    # --- state ---

    def readable(self) -> bool:
        """Whether the file was opened for reading."""
        self._check_open()
        return self.mode == "rb"

    def writable(self) -> bool:
        """Whether the file was opened for writing."""
        self._check_open()
        return self.mode == "wb"

    def seekable(self) -> bool:
        """Whether :meth:`seek` is supported: when the file was opened for reading."""
        self._check_open()
        return self._buffer is not None

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("I/O operation on closed file")

    def _check_read(self) -> io.BufferedReader:
        self._check_open()
        if self._buffer is None:
            raise io.UnsupportedOperation("not readable: opened for writing")
        return self._buffer

    # --- reading ---

    def read(self, size: Optional[int] = -1) -> bytes:
        """Read up to ``size`` bytes of text (all the rest when negative or None)."""
        return self._check_read().read(size)

    def read1(self, size: int = -1) -> bytes:
        """Read up to ``size`` bytes with at most one block decoded."""
        return self._check_read().read1(size)

    def readinto(self, b: Any) -> int:
        """Read text into a writable bytes-like object; return the bytes read."""
        return self._check_read().readinto(b)

    def readinto1(self, b: Any) -> int:
        """As :meth:`readinto`, with at most one block decoded."""
        return self._check_read().readinto1(b)

    def readline(self, size: Optional[int] = -1) -> bytes:
        """Read one line (a game, in a movetext archive), with its line feed."""
        return self._check_read().readline(size)

    def peek(self, size: int = 0) -> bytes:
        """Return buffered text without advancing."""
        return self._check_read().peek(size)

    def __iter__(self) -> "ChesszipFile":
        """Iterate over the lines of the text (the games of a movetext archive)."""
        self._check_read()
        return self

    def __next__(self) -> bytes:
        """The next line of the text."""
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def tell(self) -> int:
        """The position in the text: bytes read (or skipped by :meth:`seek`) or written so far."""
        self._check_open()
        if self._buffer is not None:
            return self._buffer.tell()
        return self._written

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move to byte ``offset`` of the text (reading only): relative to its start, the current
        position or its end for ``whence`` :data:`io.SEEK_SET`, :data:`io.SEEK_CUR` or
        :data:`io.SEEK_END`. A position past the end is the end, one before the start the start
        (as in :mod:`gzip`). Returns the new position. Only the block that holds it is
        decoded, at the next read (see the class)."""
        self._check_open()
        if self._buffer is None:
            raise io.UnsupportedOperation("seek: opened for writing")
        return self._buffer.seek(offset, whence)

    # --- writing ---

    def write(self, data: Any) -> int:
        """Compress ``data`` (bytes-like); return its length in bytes."""
        self._check_open()
        if self._compressor is None or self._fp is None:
            raise io.UnsupportedOperation("not writable: opened for reading")
        data = _bytes(data)
        out = self._compressor.compress(data)
        if out:
            self._fp.write(out)
        self._written += len(data)
        return len(data)

    def flush(self) -> None:
        """Write out the archive bytes ready so far (the archive ends only at :meth:`close`)."""
        self._check_open()
        if self._fp is not None:
            self._fp.flush()

    def fileno(self) -> int:
        """Not available: an archive's text has no file descriptor."""
        raise io.UnsupportedOperation("fileno")

    def close(self) -> None:
        """Finish the archive (writing) and close the file if this object opened it."""
        if self.closed:
            return
        try:
            if self._compressor is not None and self._fp is not None:
                compressor, self._compressor = self._compressor, None
                self._fp.write(compressor.flush())
                self._fp.flush()
        finally:
            try:
                if self._buffer is not None:
                    self._buffer.close()
                if self._close_fp and self._fp is not None:
                    self._fp.close()
            finally:
                self._fp = None
                self._buffer = None
                self._raw = None
                super().close()

    def __repr__(self) -> str:
        return f"<chesszip.ChesszipFile name={self.name!r} mode={self.mode!r}{' closed' if self.closed else ''}>"

    def _game_at(self, offset: int) -> "tuple[int, bytes, int]":
        """``(n, text, start)``: game ``n`` (0-based, as :func:`chesszip.iter_games` counts
        them) holds text byte ``offset``; ``text`` is the game's bytes and ``start`` its offset.
        Reads the archive again from the start up to that game (only for an error's message).
        """
        start = 0
        n = -1
        game = b""
        for n, game in enumerate(_native.GameReader(self._source, threads=self._threads)):
            if offset < start + len(game):
                break
            start += len(game)
        return n, game, start


class _TextFile(io.TextIOWrapper):
    """The text of a :class:`ChesszipFile`: a :class:`io.TextIOWrapper` whose
    :class:`UnicodeDecodeError` names the game holding the bad bytes, gives its position in
    that game (as :func:`chesszip.iter_games` does) and the way out (``encoding=`` or
    ``errors=``), instead of an offset in the chunk of text the wrapper had read."""

    def _named(self, e: UnicodeDecodeError) -> UnicodeDecodeError:
        binary = self.buffer
        if not isinstance(binary, ChesszipFile) or binary._buffer is None:
            return e
        # The decoder was given e.object, which ends where the file now is.
        at = binary.tell() - len(e.object) + e.start
        n, game, start = binary._game_at(at)
        if n < 0 or not start <= at < start + len(game):
            return _decode_error(e, f"the text at byte {at}")
        begin = at - start
        named = UnicodeDecodeError(e.encoding, game, begin, min(begin + e.end - e.start, len(game)), e.reason)
        return _decode_error(named, f"game {n} (byte {at} of the text)")

    def read(self, size: Optional[int] = -1) -> str:
        """As :meth:`io.TextIOWrapper.read`; a decoding error names the game."""
        try:
            return super().read(size)
        except UnicodeDecodeError as e:
            raise self._named(e) from None

    def readline(self, size: int = -1) -> str:
        """As :meth:`io.TextIOWrapper.readline`; a decoding error names the game. (Iterating
        calls it too: :class:`io.TextIOWrapper`'s ``__next__`` calls a subclass's ``readline``.)"""
        try:
            return super().readline(size)
        except UnicodeDecodeError as e:
            raise self._named(e) from None


def open(
    filename: FileArg,
    mode: str = "rb",
    *,
    level: int = DEFAULT_LEVEL,
    block_lines: Optional[int] = None,
    threads: int = 0,
    format: Optional[str] = None,
    weights: Optional[PathLike] = None,
    encoding: Optional[str] = None,
    errors: Optional[str] = None,
    newline: Optional[str] = None,
) -> Union[ChesszipFile, io.TextIOWrapper]:
    """Open a chesszip archive in binary or text mode, like :func:`gzip.open`.

    ``mode`` is ``"rb"``, ``"wb"``, ``"xb"``, ``"ab"`` (binary: a :class:`ChesszipFile`) or
    ``"rt"``, ``"wt"``, ``"xt"``, ``"at"`` (text: a :class:`io.TextIOWrapper` over one;
    ``encoding`` defaults to UTF-8, and ``newline`` works as in :func:`open`, so give
    ``newline=""`` to keep CR LF line ends as they are). The other parameters are those of
    :class:`ChesszipFile`.
    """
    if "t" in mode:
        if "b" in mode:
            raise ValueError(f"invalid mode {mode!r}")
        binary = ChesszipFile(
            filename, mode.replace("t", ""), level=level, block_lines=block_lines, threads=threads, format=format, weights=weights
        )
        return _TextFile(binary, encoding or "utf-8", errors, newline)
    if encoding is not None or errors is not None or newline is not None:
        raise ValueError("encoding, errors and newline are for text mode only")
    return ChesszipFile(filename, mode, level=level, block_lines=block_lines, threads=threads, format=format, weights=weights)
