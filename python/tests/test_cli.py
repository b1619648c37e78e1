"""The command line and Python read each other's archives, make the same bytes and say the same
things."""

from __future__ import annotations

from pathlib import Path

import chesszip


def test_same_bytes_as_the_command_line(run_cli, benchmark_archive: bytes) -> None:
    from conftest import BENCHMARK

    assert run_cli("compress", "-c", BENCHMARK).stdout == benchmark_archive


def test_command_line_expands_python_archives(run_cli, tmp_path: Path, benchmark_text: bytes, benchmark_archive: bytes) -> None:
    archive = tmp_path / "bench.chz"
    archive.write_bytes(benchmark_archive)
    assert run_cli("expand", "-c", archive).stdout == benchmark_text


def test_python_expands_command_line_archives(run_cli, tmp_path: Path, shared) -> None:
    for name in ["heldout/lichess_heldout.txt", "notation/lichess_san_with_checks.txt", "pgn/lichess/2017-05.pgn"]:
        text = shared(name).read_bytes()
        archive = tmp_path / "a.chz"
        run_cli("compress", "-1", "--block-lines", "300", "-o", archive, "-f", shared(name))
        assert chesszip.decompress(archive.read_bytes()) == text, name
        assert b"".join(chesszip.iter_games(archive, binary=True)) == text, name
        with chesszip.open(archive) as f:
            assert f.read() == text, name
        # And the other way, at level 1 with the same options: the same archive.
        assert chesszip.compress(text, 1, block_lines=300) == archive.read_bytes(), name


def test_file_object_archives_for_the_command_line(run_cli, tmp_path: Path, shared) -> None:
    text = shared("pgn/lichess/2017-05.pgn").read_bytes()
    path = tmp_path / "w.chz"
    with chesszip.open(path, "wb", level=1) as f:
        for at in range(0, len(text), 7_777):
            f.write(text[at : at + 7_777])
    assert run_cli("expand", "-c", path).stdout == text
    assert path.read_bytes() == chesszip.compress(text, 1)


def test_info_matches_the_command_line(run_cli, tmp_path: Path, benchmark_archive: bytes) -> None:
    path = tmp_path / "bench.chz"
    path.write_bytes(benchmark_archive)
    fields = {}
    for line in run_cli("info", path).stdout.decode().splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    i = chesszip.info(path)
    assert int(fields["games"]) == i.games
    assert int(fields["raw lines"]) == i.raw_lines
    assert int(fields["lines"]) == i.lines
    assert int(fields["plies"]) == i.plies
    assert int(fields["blocks"]) == i.blocks
    assert int(fields["level"]) == i.level
    assert int(fields["coding"]) == i.coding == 2
    assert fields["model id"].startswith(f"{i.model_id:016x}")
    assert int(fields["text bytes"]) == i.text_bytes
    assert int(fields["archive bytes"]) == i.archive_bytes
    # The command line labels it: the whole archive's bits per ply, overhead included.
    assert fields["bits per ply"] == f"{i.bits_per_ply:.4f} (whole archive)"


def test_extract_matches_random_access(run_cli, tmp_path: Path, benchmark_archive: bytes) -> None:
    path = tmp_path / "bench.chz"
    path.write_bytes(benchmark_archive)
    out = run_cli("extract", path, "--game", "4321").stdout.decode()
    assert out == chesszip.game(path, 4320)
