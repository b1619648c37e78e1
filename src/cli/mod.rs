//! The `chesszip` command line: a thin layer over the library, following gzip's and xz's
//! conventions (names, standard streams, exit statuses).
//!
//! Every write to standard output or standard error goes through [`status`]: a failed write is
//! an exit status of 1, never a panic (the release build aborts on one).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod bench;
mod cleanup;
mod codec;
mod generate;
mod inspect;
mod labeled;
mod level;
mod limits;
mod lines;
mod memory;
mod progress;
mod status;
mod target;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use chesszip::CompressOptions;
use chesszip::container::InputFormat;

use args::{Cli, Command, CompressArgs};
use codec::{DecodeInput, Mode};
use status::{Status, describe, error};

/// Parses the command line, runs it and returns the exit code.
pub fn main() -> ExitCode {
    memory::bound_heap_growth();
    cleanup::install();
    let args = level::expand_level_10(std::env::args_os());
    if let Err(message) = level::check_digit_clusters(args.iter().skip(1).cloned(), &<Cli as clap::CommandFactory>::command()) {
        return status::final_status(error(message)).code();
    }
    let cli = match Cli::try_parse_from(args.iter()) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to standard output and succeed (unless they cannot be
            // written); usage errors exit 1.
            let printed = e.print().is_ok();
            // `chesszip -v extract x.chz --game 1`: clap refuses `--game` of a FILE to
            // compress; say why.
            if e.use_stderr()
                && let Some(word) = misplaced_command_word(&args)
            {
                status::say!("chesszip: {}", command_word_message(word, "compress"));
            }
            return if e.use_stderr() || !printed { Status::Error.code() } else { Status::Success.code() };
        }
    };
    if let Some(message) = command_word_as_file(&cli, &args) {
        return status::final_status(error(message)).code();
    }
    status::final_status(run(cli)).code()
}

/// The error for a command word read as a FILE: without a command, clap takes the first word
/// that is no option for a command only when nothing comes before it, so `chesszip -q info
/// x.chz` would compress a file named `info`. Refused whether or not such a file exists (the
/// command line means the same in every directory): the message says to put the command
/// first, or to write `./info` (or `-- info`) for a file of that name. `args` are the
/// command line's words, the program's name first.
fn command_word_as_file(cli: &Cli, args: &[OsString]) -> Option<String> {
    if cli.command.is_some() {
        return None;
    }
    let first = cli.gzip.compress.common.files.first()?;
    // After `--` every word is a FILE, as with gzip.
    let at = args.iter().position(|a| a == first)?;
    if args[1..at].iter().any(|a| a == "--") {
        return None;
    }
    let word = first.to_str().filter(|w| is_command_word(w))?;
    let g = &cli.gzip;
    Some(command_word_message(word, if g.decompress || g.test || g.list { "read" } else { "compress" }))
}

/// The first command word of `args` (the program's name first) that an option comes before,
/// with no `--` between: what a command line that clap refuses (`chesszip -v extract x.chz
/// --game 1`, `--game` being no option without a command) may have meant as its command.
fn misplaced_command_word(args: &[OsString]) -> Option<&str> {
    if args.get(1).and_then(|a| a.to_str()).is_some_and(is_command_word) {
        return None; // the command came first
    }
    args.iter().skip(1).take_while(|a| *a != "--").filter_map(|a| a.to_str()).find(|w| is_command_word(w))
}

/// Whether `word` names a command (its name or an alias).
fn is_command_word(word: &str) -> bool {
    <Cli as clap::CommandFactory>::command().get_subcommands().any(|c| c.get_name() == word || c.get_all_aliases().any(|a| a == word))
}

/// What [`command_word_as_file`] says of the command word `word` read as a FILE to `verb`.
fn command_word_message(word: &str, verb: &str) -> String {
    format!(
        "`{word}` after an option is read as a FILE to {verb}, not as a command: put the command first \
         (`chesszip {word} [OPTIONS] FILE...`), or write ./{word} (or -- {word}) for a file of that name"
    )
}

fn compress_options(args: &CompressArgs) -> CompressOptions {
    CompressOptions {
        level: args.level.level,
        block_lines: args.block_lines.unwrap_or(0),
        threads: args.common.threads,
        format: args.format.as_deref().map(|f| match f {
            "pgn" => InputFormat::Pgn,
            _ => InputFormat::Movetext,
        }),
        verify: !args.no_verify,
        ..CompressOptions::default()
    }
}

fn decode_input(args: &CompressArgs) -> DecodeInput {
    if args.no_decompress { DecodeInput::Bytes } else { DecodeInput::Text }
}

fn run(cli: Cli) -> Status {
    let generated = match cli.command {
        None => {
            let g = &cli.gzip;
            if g.list {
                let common = &g.compress.common;
                return inspect::list(&common.files, common.quiet, common.limits.limits().memlimit);
            }
            let mode = if g.test {
                Mode::Test
            } else if g.decompress {
                // With -d, --format names the output's format, as in `expand --format`.
                match g.compress.format.as_deref() {
                    None if g.salvage => Mode::Salvage,
                    None => Mode::Expand,
                    Some("movetext") => Mode::ExpandMovetext,
                    Some(f) => return error(format_args!("-d --format {f}: expanding can only convert to movetext")),
                }
            } else {
                Mode::Compress(compress_options(&g.compress), decode_input(&g.compress))
            };
            return codec::run(&g.compress.common, mode);
        }
        Some(Command::Compress(args)) => {
            return codec::run(&args.common, Mode::Compress(compress_options(&args), decode_input(&args)));
        }
        Some(Command::Expand(args)) => {
            return codec::run(
                &args.common,
                if args.test {
                    Mode::Test
                } else if args.format.is_some() {
                    Mode::ExpandMovetext
                } else if args.salvage {
                    Mode::Salvage
                } else {
                    Mode::Expand
                },
            );
        }
        Some(Command::Info(args)) => return inspect::info(&args),
        Some(Command::Extract(args)) => return inspect::extract(&args),
        Some(Command::Completions { shell }) => generate::completions(shell),
        Some(Command::Manpage { dir }) => generate::manpage(dir.as_deref()),
        Some(Command::Bench(args)) => bench::bench(&args),
    };
    match generated {
        Ok(()) => Status::Success,
        Err(e) if status::is_broken_pipe(&e) => status::broken_pipe(),
        Err(e) => error(describe(&e)),
    }
}
