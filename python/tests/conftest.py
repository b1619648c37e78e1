"""Shared fixtures: the repository, its data, and the chesszip command line to compare with.

Data comes from ``../shared/data`` next to the repository root (and the benchmark from the
repository's ``data/``). A test whose data is missing fails, it is not skipped.

The command line is ``$CHESSZIP_BIN`` when set (CI sets it to the binary ``cargo test`` built);
otherwise ``cargo build --bin chesszip`` builds it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Callable, List

import pytest

import chesszip

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
BENCHMARK = REPO / "data" / "Chess_Games.txt"


def need(path: Path) -> Path:
    """``path``, or a loud failure when the data is missing."""
    if not path.exists():
        pytest.fail(f"test data missing: {path} (tests read ../shared/data next to the repository root)", pytrace=False)
    return path


@pytest.fixture(scope="session")
def shared() -> Callable[[str], Path]:
    """A file or folder under ../shared/data, failing loudly when missing."""
    return lambda rel: need(SHARED / rel)


@pytest.fixture(scope="session")
def benchmark_text() -> bytes:
    return need(BENCHMARK).read_bytes()


@pytest.fixture(scope="session")
def benchmark_archive(benchmark_text: bytes) -> bytes:
    """The benchmark compressed by Python at the default level."""
    return chesszip.compress(benchmark_text)


@pytest.fixture(scope="session")
def benchmark_lines(benchmark_text: bytes) -> List[str]:
    return benchmark_text.decode().splitlines(keepends=True)


@pytest.fixture(scope="session")
def cli() -> Path:
    """The chesszip command line."""
    env = os.environ.get("CHESSZIP_BIN")
    if env:
        return need(Path(env))
    subprocess.run(["cargo", "build", "--quiet", "--bin", "chesszip"], cwd=REPO, check=True)
    return need(REPO / "target" / "debug" / "chesszip")


@pytest.fixture(scope="session")
def run_cli(cli: Path) -> Callable[..., subprocess.CompletedProcess]:
    """Runs the command line with arguments; returns the finished process (bytes output)."""

    def run(*args: object, check: bool = True, input: bytes | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([str(cli), *map(str, args)], capture_output=True, check=check, input=input)

    return run


def pytest_report_header(config) -> str:
    """Which chesszip package is under test (the installed one, not the source folder)."""
    return f"chesszip package: {Path(chesszip.__file__).parent}; CHESSZIP_BIN={os.environ.get('CHESSZIP_BIN', '(cargo build)')}"
