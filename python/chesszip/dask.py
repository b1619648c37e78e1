"""chesszip archives with Dask: games read in parallel, one partition per block, and archives
written on a cluster (``pip install chesszip[dask]``).

::

    import chesszip.dask

    bag = chesszip.dask.read_games(["a.chz", "b.chz"])      # dask.bag of game texts
    "".join(bag.compute()) == text_of_a + text_of_b          # byte for byte
    df = chesszip.dask.read_table("games/*.chz")            # dask.dataframe, a row per game
    chesszip.dask.compress("lichess_db_2017-05.pgn.zst", "2017-05.chz", shard_games=100_000)

Partitions are found through the archives' indexes without decoding (a raw member, which has
no index, is decoded once to cut it into blocks). Partition ``k`` holds the games whose first
byte lies in block ``k`` (numbered across the members of a concatenated archive, then across
the paths): a game running on into the next block is whole in its first block's partition,
so some partitions may be empty, and the partitions joined in order are the archives' games,
whose text is the archives' text. Paths must be readable by the workers (a shared
filesystem); tasks carry paths, not archive bytes.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import io
import os
import secrets
import stat
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import _native
from ._api import DEFAULT_LEVEL, ENCODING, ERRORS, Limits, _encoding, _level, _limits
from ._games import _decoded
from ._table import pandas_of, table_of_games, tags_seen

if TYPE_CHECKING:  # pragma: no cover
    import dask.bag
    import dask.dataframe

__all__ = ["blocks", "read_games", "read_table", "compress"]

Paths = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]

#: One partition: (path, member, block number across the archive's members).
Block = Tuple[str, int, int]


def _paths(paths: Paths) -> List[str]:
    """Absolute paths; a string with ``*``, ``?`` or ``[`` is a glob (sorted)."""
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out: List[str] = []
    for p in items:
        p = os.fsdecode(p)
        if any(c in p for c in "*?["):
            found = sorted(glob.glob(p))
            if not found:
                raise FileNotFoundError(f"no archive matches {p!r}")
            out.extend(os.path.abspath(f) for f in found)
        else:
            if not os.path.exists(p):
                raise FileNotFoundError(p)
            out.append(os.path.abspath(p))
    return out


def blocks(paths: Paths, *, limits: Optional[Limits] = None) -> List[Block]:
    """The partitions of :func:`read_games`: ``(path, member, block)`` for every block of
    every archive, in order, from the indexes alone."""
    lim = _limits(limits)
    return [(p, m, k) for p in _paths(paths) for (m, k, _) in _native.block_list(p, limits=lim)]


def _in_block(block: Block) -> Callable[[int], str]:
    """Names the ``n``-th game of a partition in a :class:`UnicodeDecodeError`."""
    return lambda n: f"game {n} of block {block[2]} of {block[0]}"


def _block_texts(block: Block, limits: Optional[Dict[str, object]], binary: bool, encoding: str, errors: str) -> List[Any]:
    path, _, k = block
    games = _native.block_games(path, k, limits=limits)
    return games if binary else list(_decoded(games, encoding, errors, _in_block(block)))


def _block_chess(block: Block, limits: Optional[Dict[str, object]], encoding: str, errors: str) -> List[Any]:
    import chess.pgn

    out = []
    for text in _block_texts(block, limits, False, encoding, errors):
        g = chess.pgn.read_game(io.StringIO(text))
        if g is not None:
            out.append(g)
    return out


def read_games(
    paths: Paths,
    *,
    as_chess: bool = False,
    binary: bool = False,
    limits: Optional[Limits] = None,
    encoding: str = ENCODING,
    errors: str = ERRORS,
) -> "dask.bag.Bag":
    """A :class:`dask.bag.Bag` of the games of one or many archives, one partition per block.

    :param paths: a path, a glob, or a list of them (read in that order).
    :param as_chess: python-chess :class:`chess.pgn.Game` objects instead of text (text that
        holds no game, e.g. a blank line, is left out).
    :param binary: the games' bytes instead of text.
    :param limits: ceilings for archives from elsewhere (:class:`chesszip.Limits`).
    :param encoding: how the games are decoded (``"utf-8"`` by default).
    :param errors: as for :meth:`bytes.decode` (``"strict"`` by default, as everywhere in the
        package: a :class:`UnicodeDecodeError` names the game and its block).
    """
    import dask
    import dask.bag as db

    if not binary:
        _encoding(encoding)
    lim = _limits(limits)
    parts = blocks(paths, limits=limits)
    if not parts:
        return db.from_sequence([], npartitions=1)
    if as_chess:
        tasks = [dask.delayed(_block_chess)(b, lim, encoding, errors, dask_key_name=f"chesszip-chess-{i}-{_token(b, lim, encoding, errors)}") for i, b in enumerate(parts)]
    else:
        tasks = [
            dask.delayed(_block_texts)(b, lim, binary, encoding, errors, dask_key_name=f"chesszip-games-{i}-{_token(b, lim, binary, encoding, errors)}")
            for i, b in enumerate(parts)
        ]
    return db.from_delayed(tasks)


def _token(block: Block, *options: object) -> str:
    """A task's key for ``block`` read with ``options``: the file's time and size make an
    archive rewritten in place a new key, and the options (encoding, errors, columns, ...)
    must be part of it too: Dask reuses what an equal key computed before (read_table(p)
    raising UnicodeDecodeError, then read_table(p, encoding="latin-1") raised it again)."""
    from dask.base import tokenize

    return tokenize(block, os.path.getmtime(block[0]), os.path.getsize(block[0]), *options)


def _is_pgn(path: str) -> bool:
    """Whether the archive at ``path`` holds PGN (its first member's format, from its header)."""
    return _native.GameReader(path, threads=1).format == "pgn"


def _block_frame(block: Block, limits: Optional[Dict[str, object]], moves: str, tags: Sequence[str], encoding: str, errors: str) -> Any:
    games = _native.block_games(block[0], block[2], limits=limits)
    return pandas_of(
        table_of_games(games, moves=moves, tags=tags, encoding=encoding, errors=errors, where=_in_block(block), pgn=_is_pgn(block[0]))
    )


def read_table(
    paths: Paths,
    *,
    moves: str = "san",
    tags: Optional[Sequence[str]] = None,
    limits: Optional[Limits] = None,
    encoding: str = ENCODING,
    errors: str = ERRORS,
) -> "dask.dataframe.DataFrame":
    """A :class:`dask.dataframe.DataFrame` of one row per game (the columns of
    :func:`chesszip.to_arrow`, pyarrow-backed dtypes), one partition per block.

    :param moves: ``"san"`` (a list of SAN moves per game) or ``"movetext"``.
    :param tags: the tag columns; ``None``: those of the first block that holds games
        (decoded here, once, to know the columns; lichess writes the same tags in every game).
        Tags outside the list are dropped, missing ones null. The union of every block's tags
        is not taken, because it is not cheap: it needs every block's tags before the first
        partition runs, and a tags-only read decodes whole every block of coding 6 (what
        this release writes) whose games have ``ECO``, ``Opening`` or ``UTCTime`` tags, as
        lichess games do (see :func:`chesszip.read_tags`), so it would decode the whole input
        on this machine; dask's own readers (``read_csv``) take their columns from a sample
        in the same way. Where games differ in their tags and a full pass is acceptable, pass
        the union: ``tags=list(dict.fromkeys(name for p in paths for game in
        chesszip.read_tags(p) for name in game))``.
    :param encoding: how the games are decoded (``"utf-8"`` by default).
    :param errors: as for :meth:`bytes.decode` (``"strict"`` by default, as everywhere in the
        package: a :class:`UnicodeDecodeError` names the game and its block).
    """
    import dask
    import dask.dataframe as dd

    _encoding(encoding)
    lim = _limits(limits)
    parts = blocks(paths, limits=limits)
    if tags is None:
        tags = []
        for b in parts:
            games = _native.block_games(b[0], b[2], limits=lim)
            tags = tags_seen(games, encoding=encoding, errors=errors, where=_in_block(b), pgn=_is_pgn(b[0]))
            if tags:
                break
    tags = list(tags)
    meta = pandas_of(table_of_games([], moves=moves, tags=tags))
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    tasks = [dask.delayed(_block_frame)(b, lim, moves, tags, encoding, errors, dask_key_name=f"chesszip-table-{i}-{_token(b, lim, moves, tags, encoding, errors)}") for i, b in enumerate(parts)]
    return dd.from_delayed(tasks, meta=meta, verify_meta=False)


def _compress_shard(shard: bytes, level: int, block_lines: Optional[int], fmt: str, threads: int) -> bytes:
    return _native.compress(shard, level, block_lines=block_lines, threads=threads, format=fmt)


def _shards(src: Union[str, "os.PathLike[str]", bytes], shard_games: int) -> Tuple[str, Iterator[bytes]]:
    reader = _native.ShardReader(src if isinstance(src, bytes) else os.fsdecode(src), shard_games)

    def gen() -> Iterator[bytes]:
        while True:
            s = reader.read_shard()
            if s is None:
                return
            yield s

    return reader.format, gen()


def _is_device(path: str) -> bool:
    """Whether ``path`` is a character device or a FIFO (``/dev/null``, a named pipe): written
    in place, as the command line does, never refused nor removed."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _temp_beside(path: str) -> Tuple[str, BinaryIO]:
    """A new file in ``path``'s folder (``.chesszip-*.tmp``, as the command line's), opened
    for writing with the permissions of a new file (0o666 less the umask)."""
    folder = os.path.dirname(path) or "."
    while True:
        temp = os.path.join(folder, f".chesszip-{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        except OSError as e:
            # Named for the target the caller gave, not for a temporary name it never asked for.
            raise type(e)(e.errno, e.strerror, path) from None
        return temp, os.fdopen(fd, "wb")


def _check_target(src: Union[str, "os.PathLike[str]", bytes], dst: str, into_dir: bool, force: bool) -> List[str]:
    """Refuse what the command line refuses (see :func:`compress`); return the ``part-*.chz``
    files already in a ``dst`` folder."""
    if not isinstance(src, bytes):
        src = os.fsdecode(src)
        if not into_dir and os.path.exists(dst) and os.path.exists(src) and os.path.samefile(src, dst):
            raise ValueError(f"{dst}: the output would overwrite the input")
        if src.endswith(".chz") and not force:
            raise ValueError(f"{src}: already has the .chz suffix (force=True compresses its bytes as they are)")
    stale = sorted(glob.glob(os.path.join(glob.escape(dst), "part-*.chz"))) if into_dir else []
    if not force:
        if into_dir and stale:
            raise FileExistsError(errno.EEXIST, f"the folder holds part-*.chz files (force=True replaces them): {stale[0]}", dst)
        if not into_dir and os.path.lexists(dst) and not _is_device(dst):
            raise FileExistsError(errno.EEXIST, "already exists (force=True replaces it)", dst)
    return stale


def compress(
    src: Union[str, "os.PathLike[str]", bytes],
    dst: Union[str, "os.PathLike[str]"],
    *,
    shard_games: int = 100_000,
    level: int = DEFAULT_LEVEL,
    block_lines: Optional[int] = None,
    threads: int = 1,
    client: Any = None,
    scheduler: Optional[str] = None,
    in_flight: Optional[int] = None,
    force: bool = False,
) -> Dict[str, Any]:
    """Compress ``src`` on a Dask cluster: the text is cut into shards of ``shard_games`` whole
    games (lines of movetext, games of PGN), read as a stream (gzip, bzip2, xz and zstd input
    decoded on the fly, as the command line does), each shard compressed on a worker with
    :func:`chesszip.compress`, and the archives joined in order into ``dst`` (a concatenated
    archive, which expands to ``src``'s text byte for byte), or, when ``dst`` is an existing
    directory, written there as ``part-00000.chz``, ``part-00001.chz``, ... (read back in
    order with ``read_games(dst + "/part-*.chz")``).

    :param client: a :class:`distributed.Client`; ``None``: the default client if there is
        one and no ``scheduler`` is given, else dask's ``scheduler`` (``None``: threads) on
        this machine.
    :param threads: coding threads per shard (1: the workers' own parallelism does the rest).
    :param in_flight: shards held at once (sent or compressed, not yet written); default twice
        the cluster's threads. Memory on this machine is about this many shards of text.
    :param force: as the command line's ``-f``: compress a ``src`` named ``*.chz`` (its bytes
        are archived as they are, not expanded), replace an existing ``dst`` file, and write
        into a folder that already holds ``part-*.chz`` files (replacing them; the parts past
        the last one written are removed, so that ``part-*.chz`` is this input).
    :returns: ``{"format", "shards", "text_bytes", "archive_bytes", "paths"}``.
    :raises ValueError: without ``force``, for a ``src`` named ``*.chz`` (already an archive:
        the command line skips it); always, when ``dst`` is ``src`` itself.
    :raises FileExistsError: without ``force``, when ``dst`` is an existing file or a folder
        that holds ``part-*.chz`` files. Nothing is written then.

    The archive (each part) is written to a temporary file beside it (``.chesszip-*.tmp``)
    and renamed into place once the whole input is compressed, as by the command line: a
    failure on the way (a worker's error, a full disk, an interrupt) removes the temporary
    files and leaves ``dst`` as it was, an older archive or a folder's older parts included
    (a partial archive would read as a shorter, valid one).
    """
    from collections import deque

    _level(level)

    dst = os.fsdecode(dst)
    into_dir = os.path.isdir(dst)
    stale = _check_target(src, dst, into_dir, force)
    fmt, shards = _shards(src, shard_games)
    if client is None and scheduler is None:
        try:
            from distributed import default_client

            client = default_client()
        except (ImportError, ValueError):
            client = None
    if in_flight is None:
        cores = sum(client.nthreads().values()) if client is not None else (os.cpu_count() or 1)
        in_flight = max(2, 2 * cores)
    paths: List[str] = []
    text_bytes = archive_bytes = 0
    device = not into_dir and _is_device(dst)
    # Everything but a device is written to temporary files beside the target, renamed over
    # it only once the whole input is compressed, as the command line does: a failure leaves
    # the target (an older archive, a folder's older parts) as it was.
    temps: List[str] = []
    out: Optional[BinaryIO] = None
    if device:
        out = open(dst, "wb")
    elif not into_dir:
        temp, out = _temp_beside(dst)
        temps.append(temp)
    finished = False

    def write(n: int, archive: bytes) -> None:
        nonlocal archive_bytes
        archive_bytes += len(archive)
        if out is not None:
            out.write(archive)
        else:
            temp, f = _temp_beside(os.path.join(dst, f"part-{n:05d}.chz"))
            temps.append(temp)
            with f:
                f.write(archive)
            paths.append(os.path.join(dst, f"part-{n:05d}.chz"))

    try:
        n = 0
        if client is not None:
            pending: "deque[Any]" = deque()
            for shard in shards:
                text_bytes += len(shard)
                pending.append(client.submit(_compress_shard, shard, level, block_lines, fmt, threads, pure=False))
                while len(pending) >= in_flight:
                    write(n, pending.popleft().result())
                    n += 1
            while pending:
                write(n, pending.popleft().result())
                n += 1
        else:
            import dask

            batch: List[bytes] = []

            def run(batch: List[bytes]) -> None:
                nonlocal n
                done = dask.compute(*[dask.delayed(_compress_shard)(s, level, block_lines, fmt, threads) for s in batch], scheduler=scheduler)
                for archive in done:
                    write(n, archive)
                    n += 1

            for shard in shards:
                text_bytes += len(shard)
                batch.append(shard)
                if len(batch) >= in_flight:
                    run(batch)
                    batch = []
            if batch:
                run(batch)
        if n == 0:
            # No text: one empty archive, so that the result is an archive all the same.
            write(0, _compress_shard(b"", level, block_lines, fmt, threads))
            n = 1
        if out is not None:
            out.close()
        if not device:
            targets = paths if into_dir else [dst]
            if not force:
                # Refused at the start; checked again in case one appeared meanwhile.
                _check_target(src, dst, into_dir, force)
            for temp, target in zip(temps, targets):
                os.replace(temp, target)
            temps = []
        finished = True
    finally:
        if out is not None:
            out.close()
        if not finished:
            for temp in temps:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(temp)
    if into_dir:
        written = {os.path.basename(p) for p in paths}
        for path in stale:
            if os.path.basename(path) not in written:
                os.remove(path)
    return {
        "format": fmt,
        "shards": n,
        "text_bytes": text_bytes,
        "archive_bytes": archive_bytes,
        "paths": paths if into_dir else [dst],
    }
