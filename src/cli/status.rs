//! Exit statuses (those of gzip and xz), the messages that go with them, and every write to
//! standard output and standard error.
//!
//! Nothing in the command line uses `print!` or `eprint!` (they panic when the stream fails,
//! and the release build aborts on a panic): messages go through [`say!`],
//! which remembers a failed write so that the run still does all its work and then exits 1
//! ([`final_status`]); requested output goes through [`stdout`], whose errors are returned.

use std::fmt::{self, Display};
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Set once a write to standard error has failed.
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// Set once a write to standard output has failed (other than to a closed pipe, which ends the
/// run at once: [`broken_pipe`]).
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `message` and a line feed to standard error. A failed write (`2>/dev/full`) stops
/// nothing: it is remembered, and [`final_status`] makes the run exit 1 when all is done.
pub fn say_line(message: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    if writeln!(err, "{message}").and_then(|()| err.flush()).is_err() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// [`say_line`] with `format!`'s syntax: a line on standard error, never a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::status::say_line(format_args!($($arg)*))
    };
}
pub(crate) use say;

/// Writes `text` to standard error as it is (no line feed), like [`say_line`].
pub fn say_part(text: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    if write!(err, "{text}").and_then(|()| err.flush()).is_err() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// The status of the whole run: `status`, or [`Status::Error`] if a message or the requested
/// output could not be written.
pub fn final_status(status: Status) -> Status {
    if STDERR_FAILED.load(Ordering::Relaxed) || STDOUT_FAILED.load(Ordering::Relaxed) { status.max(Status::Error) } else { status }
}

/// Whether a write to standard output has failed (not counting a closed pipe): the output is
/// lost, so a run over several inputs stops after the current one.
pub fn stdout_failed() -> bool {
    STDOUT_FAILED.load(Ordering::Relaxed)
}

/// Standard output, locked, with its write errors remembered ([`stdout_failed`]) as well as
/// returned. A closed pipe is not remembered here: the caller ends the run by [`broken_pipe`].
pub struct Stdout {
    inner: io::StdoutLock<'static>,
}

/// Standard output for requested output (data, `info`, `--list`, completions, tables).
pub fn stdout() -> Stdout {
    Stdout { inner: io::stdout().lock() }
}

impl Stdout {
    fn check<T>(result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result
            && e.kind() != io::ErrorKind::BrokenPipe
        {
            STDOUT_FAILED.store(true, Ordering::Relaxed);
        }
        result
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Self::check(self.inner.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        Self::check(self.inner.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        Self::check(self.inner.flush())
    }
}

/// Prints `chesszip: MESSAGE` for an error and returns [`Status::Error`].
pub fn error(message: impl Display) -> Status {
    say!("chesszip: {message}");
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
        say!("chesszip: {message}");
    }
    Status::Warning
}

/// Whether `e` is a write to a closed pipe (`chesszip -c big.txt | head -c 10`): the output
/// was cut, so the run ends by [`broken_pipe`], never with success.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || matches!(c.downcast_ref::<chesszip::Error>(), Some(chesszip::Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Ends the process after a write to a closed pipe, as gzip, xz and zstd end: killed by
/// SIGPIPE (exit status 141 in a shell), silently, after removing any temporary file. Where
/// there is no SIGPIPE (or it cannot be raised), prints `chesszip: Broken pipe` and exits 1.
/// Never returns: the output is cut, so the run cannot report success, whatever it was doing
/// (compress, expand, extract, `info`, `-l`).
pub fn broken_pipe() -> ! {
    super::cleanup::remove_pending();
    #[cfg(unix)]
    {
        let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
    }
    say!("chesszip: Broken pipe");
    std::process::exit(1)
}
