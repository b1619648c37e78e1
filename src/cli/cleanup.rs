//! Removing the temporary files of unfinished outputs when the process is told to stop
//! (SIGINT, SIGTERM, SIGHUP), as gzip and xz do: a killed run leaves neither a partial output
//! nor a hidden temporary file behind.
//!
//! [`install`] starts a thread that waits for those signals (signal-hook, so nothing runs in
//! the signal handler itself). On one it removes every file [`register`]ed and not yet
//! released, then lets the signal take its default action: the process ends as killed by it,
//! with the registry still locked so that no new temporary file can appear meanwhile.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// Temporary files to remove if the process is told to stop, with the id of their
/// registration.
static PENDING: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<(u64, PathBuf)>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the signal thread (once per process; later calls do nothing). Without it, or where
/// signals cannot be caught, registered files are only removed by their owners.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
                return;
            };
            let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let files = pending();
                    for (_, path) in files.iter() {
                        let _ = std::fs::remove_file(path);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    // Only if the default action did not end the process.
                    std::process::exit(128 + signal);
                }
            });
            drop(spawned);
        }
    });
}

/// Removes every registered temporary file now (the process is about to end without its
/// owners' cleanup: [`super::status::broken_pipe`]); the registry stays locked until the end.
pub fn remove_pending() {
    let files = pending();
    for (_, path) in files.iter() {
        let _ = std::fs::remove_file(path);
    }
    std::mem::forget(files);
}

/// A file removed if the process is told to stop while this lives; dropping it releases the
/// file (its owner then renames or removes it).
#[derive(Debug)]
pub struct Registration(u64);

/// Registers `path` for removal on SIGINT, SIGTERM or SIGHUP.
pub fn register(path: &Path) -> Registration {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    pending().push((id, path.to_path_buf()));
    Registration(id)
}

impl Drop for Registration {
    fn drop(&mut self) {
        pending().retain(|(id, _)| *id != self.0);
    }
}
