//! Shell completions and the manual page, generated from the command line's definition.

use std::io::{self, Write};

use anyhow::Result;
use clap::CommandFactory;
use clap_complete::Shell;

use super::args::Cli;

/// Writes the completion script for `shell` to standard output.
pub fn completions(shell: Shell) -> Result<()> {
    let mut cmd = Cli::command();
    let mut out = io::stdout().lock();
    clap_complete::generate(shell, &mut cmd, "chesszip", &mut out);
    out.flush()?;
    Ok(())
}

/// Writes the manual page (roff) to standard output: the options and the list of commands
/// (each command's own options are in `chesszip COMMAND --help`).
pub fn manpage() -> Result<()> {
    let mut out = io::stdout().lock();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    out.flush()?;
    Ok(())
}
