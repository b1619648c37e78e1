"""Lossless compression of chess game collections.

chesszip compresses movetext (one game per line of SAN moves, then the result) and real PGN
files byte for byte, with a chess engine predicting each move. This package is the Python face
of the same Rust library the ``chesszip`` command line uses: archives written here expand with
the command line and the other way round, and the same input gives the same archive bytes.

The API follows the standard library's :mod:`gzip` and :mod:`lzma`::

    import chesszip

    archive = chesszip.compress(open("games.txt", "rb").read())      # bytes -> bytes
    text = chesszip.decompress(archive)

    with chesszip.open("games.chz", "wt") as f:                       # file objects
        f.write("e4 e5 Nf3 Nc6 Bb5 a6 1-0\\n")
    with chesszip.open("games.chz", "rt") as f:
        for line in f:
            ...

and adds what game collections need::

    for text in chesszip.iter_games("games.chz"):                     # game by game, streamed
        ...
    for game in chesszip.iter_chess_games("games.chz"):               # python-chess Games
        print(game.headers["Result"], game.end().board().fen())
    chesszip.game("games.chz", 1234)                                   # random access
    chesszip.info("games.chz").bits_per_ply
    chesszip.to_arrow("games.chz")                                     # a row per game (pyarrow)

and, with ``pip install chesszip[dask]``, :mod:`chesszip.dask`: games read in parallel, one
partition per block, and archives written on a Dask cluster.

Coding runs in Rust with the GIL released, on worker threads of its own (``threads=0``: one
per core), so other Python threads go on meanwhile and thread pools compress several files in
parallel. Errors of the library raise :class:`ChesszipError` (a :class:`ValueError`) or its
subclasses with the message the command line prints, naming the damaged block.
"""

from ._native import (
    DEFAULT_BLOCK_LINES,
    DEFAULT_LEVEL,
    MAX_LEVEL,
    MIN_LEVEL,
    ChesszipError,
    CorruptArchiveError,
    DecodeLimitError,
    UnsupportedArchiveError,
)
from ._api import ArchiveInfo, ChesszipCompressor, Limits, compress, decompress, info, load_weights
from ._file import ChesszipFile, open
from ._games import Archive, chess_game, game, iter_chess_games, iter_games, read_tags
from ._table import to_arrow, to_pandas

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_BLOCK_LINES",
    "DEFAULT_LEVEL",
    "MAX_LEVEL",
    "MIN_LEVEL",
    "Archive",
    "ArchiveInfo",
    "ChesszipCompressor",
    "ChesszipError",
    "ChesszipFile",
    "CorruptArchiveError",
    "DecodeLimitError",
    "Limits",
    "UnsupportedArchiveError",
    "chess_game",
    "compress",
    "decompress",
    "game",
    "info",
    "iter_chess_games",
    "iter_games",
    "load_weights",
    "open",
    "read_tags",
    "to_arrow",
    "to_pandas",
]
