//! Stopping cleanly on SIGINT and SIGTERM: the temporary files of the command are removed and
//! the process exits with 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
//!
//! A thread waits for the signal (signal-hook), so the handler itself does nothing but wake
//! it. Registering a path and creating it, and committing it and unregistering it, each
//! happen under the lock the cleanup takes: a signal thus finds every temporary path either
//! not yet created, registered, or already renamed into place, never half-way.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};

/// What a signal removes.
#[derive(PartialEq)]
enum Temporary {
    /// A file or directory tree.
    Path(PathBuf),
    /// Every entry of a directory whose name starts with a prefix.
    Prefixed(PathBuf, String),
}

/// The temporaries of the command.
static TEMPORARY: Mutex<Vec<Temporary>> = Mutex::new(Vec::new());

fn temporary() -> MutexGuard<'static, Vec<Temporary>> {
    TEMPORARY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the thread that handles SIGINT and SIGTERM.
pub fn install() -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let temporaries = temporary();
            for t in temporaries.iter() {
                match t {
                    Temporary::Path(path) => remove(path),
                    Temporary::Prefixed(dir, prefix) => {
                        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                            if entry.file_name().to_string_lossy().starts_with(prefix) {
                                remove(&entry.path());
                            }
                        }
                    }
                }
            }
            let name = if signal == SIGINT {
                "interrupted"
            } else {
                "terminated"
            };
            eprintln!("shardlab: {name}; its temporary files are removed");
            std::process::exit(128 + signal);
        }
    });
    Ok(())
}

/// Waits for a cleanup that a signal started (it ends the process), so that an error it
/// caused in the main thread (a file of a removed directory) does not exit first.
pub fn settle() {
    drop(temporary());
}

/// Runs `create` (which makes `path`) with `path` registered for removal on a signal.
pub fn stage<T>(path: &Path, create: impl FnOnce() -> T) -> T {
    let mut temporaries = temporary();
    temporaries.push(Temporary::Path(path.to_path_buf()));
    create()
}

/// Runs `commit` (which renames `path` into place, or removes it) and unregisters `path`.
pub fn unstage<T>(path: &Path, commit: impl FnOnce() -> T) -> T {
    let mut temporaries = temporary();
    let done = commit();
    temporaries.retain(|t| *t != Temporary::Path(path.to_path_buf()));
    done
}

/// Registers the files of `dir` whose names start with `prefix` for removal on a signal (the
/// temporary files of a trace being written, which are renamed away when complete).
pub fn stage_prefixed(dir: &Path, prefix: &str) {
    temporary().push(Temporary::Prefixed(dir.to_path_buf(), prefix.to_string()));
}

/// Removes a file or directory tree that another thread may still be writing into: files
/// created behind the walk are caught by the next attempt, and a removed directory is never
/// created again by the writers (see `reports::output::OutputDir::write_file`).
fn remove(path: &Path) {
    for _ in 0..100 {
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        match removed {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => return,
        }
    }
}
