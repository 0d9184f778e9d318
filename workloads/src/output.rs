//! Where an output file goes and how it is replaced: one rule for every command that writes a
//! file (`gen`, `convert`, and each file of a report directory).
//!
//! - Standard output (`-`) and anything that is not a regular file (a FIFO, a character or
//!   block device such as `/dev/null`, a socket) are written **in place**: opened for writing,
//!   never truncated, never replaced. Renaming a file over `/dev/null` would break the machine.
//! - A regular file, or a path that does not exist yet, is written under a temporary name in
//!   its directory and renamed over it when complete, so the path holds either the old file or
//!   the whole new one. A symbolic link is followed: the file it names is replaced, the link
//!   stays a link.
//! - New files get mode `0666` minus the umask, as any file the user creates (not `0600`).
//!
//! ```
//! use workloads::output::{destination, Destination};
//! assert!(matches!(destination("/dev/null".as_ref()).unwrap(), Destination::InPlace(_)));
//! assert!(matches!(destination("-".as_ref()).unwrap(), Destination::Stdout));
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How an output path is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Standard output (`-`).
    Stdout,
    /// A FIFO, device or socket: opened and written directly.
    InPlace(PathBuf),
    /// A regular file (or a new path): staged beside it and renamed over it. The path is the
    /// file itself, with any symbolic links resolved.
    Replace(PathBuf),
}

impl Destination {
    /// The directory a staged file for this destination is made in: the target's own
    /// directory, or the temporary directory when nothing is renamed.
    pub fn staging_dir(&self) -> PathBuf {
        match self {
            Destination::Replace(path) => match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            },
            _ => std::env::temp_dir(),
        }
    }
}

/// Decides how `path` is written (see the module docs). A directory, or a symbolic link to
/// nothing, is an error: neither can be replaced by a file.
pub fn destination(path: &Path) -> io::Result<Destination> {
    if is_stdio(path) {
        return Ok(Destination::Stdout);
    }
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(Destination::Replace(fs::canonicalize(path)?)),
        Ok(meta) if meta.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory; name a file",
        )),
        Ok(_) => Ok(Destination::InPlace(path.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if fs::symlink_metadata(path).is_ok() {
                Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    "is a symbolic link to a file that does not exist; remove the link or \
                     name its target",
                ))
            } else {
                Ok(Destination::Replace(path.to_path_buf()))
            }
        }
        Err(e) => Err(e),
    }
}

/// The prefix of every staged file's name, `.shardlab-PID-`: whoever must remove staged files
/// after an interruption looks for it in [`Destination::staging_dir`].
pub fn staging_prefix() -> String {
    format!(".shardlab-{}-", std::process::id())
}

/// True for the path `-`, which means standard input (or output).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A new, empty temporary file in `dir`, named with [`staging_prefix`], with mode `0666`
/// minus the umask. Removed when dropped unless persisted.
pub fn staged_file(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    let prefix = staging_prefix();
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The kernel applies the umask to the mode given at creation.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Opens a FIFO, device or socket for writing, without creating or truncating it.
pub fn open_in_place(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).open(path)
}

/// Writes `bytes` to `path` by the rule of [`destination`]: in place for standard output and
/// special files, otherwise staged beside the target and renamed over it.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match destination(path)? {
        Destination::Stdout => io::stdout().lock().write_all(bytes),
        Destination::InPlace(path) => open_in_place(&path)?.write_all(bytes),
        Destination::Replace(target) => {
            let dir = Destination::Replace(target.clone()).staging_dir();
            let mut staged = staged_file(&dir)?;
            staged.write_all(bytes)?;
            staged.persist(&target).map_err(|e| e.error)?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_replaced_and_a_symlink_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.csv");
        fs::write(&file, "old").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_file(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&file).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no staged file is left behind");
    }

    #[test]
    fn a_dangling_link_and_a_directory_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("missing"), &link).unwrap();
        assert!(destination(&link).is_err());
        assert!(destination(dir.path()).is_err());
        assert!(!dir.path().join("missing").exists());
    }

    #[test]
    fn a_fifo_is_written_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_file(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn new_files_follow_the_umask_not_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.csv");
        write_file(&file, b"x").unwrap();
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        let status = fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
            .unwrap();
        assert_eq!(mode, 0o666 & !umask, "mode {mode:o} under umask {umask:o}");
    }
}
