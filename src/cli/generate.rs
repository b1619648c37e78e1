//! Shell completions and the manual pages, generated from the command line's definition.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use super::args::Cli;
use super::status;

/// Writes the completion script for `shell` to standard output.
pub fn completions(shell: Shell) -> Result<()> {
    let mut cmd = Cli::command();
    // Generated in memory: clap_complete panics if its writer fails.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "chesszip", &mut script);
    let mut out = status::stdout();
    out.write_all(&script).context("writing (stdout)")?;
    out.flush().context("writing (stdout)")?;
    Ok(())
}

/// The command line's definition as the manual pages show it (no `help` command: `--help`
/// does its work).
fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Writes the manual pages. With `dir`, one page per command into `dir` (`chesszip.1`, whose
/// list of commands names the others, and `chesszip-COMMAND.1`). Without, `chesszip.1` to
/// standard output, whose list of commands names no other page: it says how to get the
/// commands' options instead.
pub fn manpage(dir: Option<&Path>) -> Result<()> {
    if let Some(dir) = dir {
        // create_dir_all would say "File exists" of a file there, which hides what is wrong.
        if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            anyhow::bail!("--dir {}: exists and is not a directory", dir.display());
        }
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        clap_mangen::generate_to(command(), dir).with_context(|| format!("writing manual pages to {}", dir.display()))?;
        return Ok(());
    }
    let page = single_page()?;
    let mut out = status::stdout();
    out.write_all(page.as_bytes()).context("writing (stdout)")?;
    out.flush().context("writing (stdout)")?;
    Ok(())
}

/// The page of `chesszip` alone: clap_mangen's page, with its list of commands (which names
/// a page per command) replaced by one that points at `--help` and `manpage --dir`.
fn single_page() -> io::Result<String> {
    let cmd = command();
    let mut page = Vec::new();
    Man::new(cmd.clone()).render(&mut page)?;
    let page = String::from_utf8(page).map_err(io::Error::other)?;
    let mut roff = Roff::default();
    roff.control("SH", ["COMMANDS"]);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        roff.control("TP", []);
        let mut names = vec![bold(format!("chesszip {}", sub.get_name()))];
        for alias in sub.get_visible_aliases() {
            names.extend([roman(", "), bold(format!("chesszip {alias}"))]);
        }
        roff.text(names);
        if let Some(about) = sub.get_about() {
            roff.text([roman(about.to_string())]);
        }
    }
    roff.control("PP", []);
    roff.text([
        roman("The options of a command: "),
        bold("chesszip COMMAND --help"),
        roman(". A manual page per command: "),
        bold("chesszip manpage --dir DIR"),
        roman(" writes chesszip.1 and chesszip-COMMAND.1 into DIR."),
    ]);
    let section = roff.render();
    // Without the preamble that every rendering starts with (the page has it already).
    let section = &section[section.find(".SH").expect("the section's heading")..];
    let heading = "\n.SH SUBCOMMANDS\n";
    Ok(match page.find(heading) {
        Some(start) => {
            let rest = &page[start + 1..];
            let end = rest[1..].find("\n.SH ").map_or(page.len(), |i| start + 1 + i + 2);
            format!("{}{section}{}", &page[..start + 1], &page[end..])
        }
        None => format!("{page}{section}"),
    })
}
