//! The progress bar: on standard error when it is a terminal and the input is long (or of
//! unknown length), never with `-q`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs shorter than this finish too fast for a bar to help.
const LONG_INPUT: u64 = 1 << 20;

/// A progress bar over bytes of text, or nothing.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for `name` over `total` bytes of text (`None` if unknown), shown only if `wanted`,
    /// standard error is a terminal and the input is long or of unknown length.
    pub fn new(name: &str, total: Option<u64>, wanted: bool) -> Progress {
        if !wanted || !std::io::stderr().is_terminal() || total.is_some_and(|t| t < LONG_INPUT) {
            return Progress { bar: None };
        }
        let bar = match total {
            Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{msg} {wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta}")
                    .expect("valid template"),
            ),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
                .with_style(ProgressStyle::with_template("{spinner} {msg} {bytes} {binary_bytes_per_sec}").expect("valid template")),
        };
        bar.set_message(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar: Some(bar) }
    }

    /// Records that `done` bytes of text have been processed.
    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
