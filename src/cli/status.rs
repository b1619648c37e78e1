//! Exit statuses (those of gzip and xz) and the messages that go with them.

use std::fmt::Display;
use std::process::ExitCode;

/// How a run went; a run over several files ends with the worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Everything worked: exit 0.
    Success,
    /// Something was skipped or odd, but nothing failed: exit 2.
    Warning,
    /// Something failed: exit 1.
    Error,
}

impl Status {
    /// The process exit code.
    pub fn code(self) -> ExitCode {
        ExitCode::from(match self {
            Status::Success => 0,
            Status::Error => 1,
            Status::Warning => 2,
        })
    }
}

/// Prints `chesszip: MESSAGE` for an error and returns [`Status::Error`].
pub fn error(message: impl Display) -> Status {
    eprintln!("chesszip: {message}");
    Status::Error
}

/// An error and its causes, outermost first, separated by `: `; a cause that its parent's
/// message already ends with is not repeated. Never a debug dump.
pub fn describe(e: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if message.ends_with(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// Prints `chesszip: MESSAGE` for a warning unless `quiet`, and returns [`Status::Warning`].
pub fn warning(quiet: bool, message: impl Display) -> Status {
    if !quiet {
        eprintln!("chesszip: {message}");
    }
    Status::Warning
}

/// Whether `e` is a write to a closed pipe (`chesszip -dc x.chz | head`): the reader has all
/// it wanted, so this is no error worth a message.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || matches!(c.downcast_ref::<chesszip::Error>(), Some(chesszip::Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
