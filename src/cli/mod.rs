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
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to standard output and succeed (unless they cannot be
            // written); usage errors exit 1.
            let printed = e.print().is_ok();
            return if e.use_stderr() || !printed { Status::Error.code() } else { Status::Success.code() };
        }
    };
    status::final_status(run(cli)).code()
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
                return inspect::list(&g.compress.common.files, g.compress.common.quiet);
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
