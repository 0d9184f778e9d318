//! Writing a report directory without ever leaving a half-written file behind.

use std::fs;
use std::path::{Path, PathBuf};

use crate::ReportError;

/// A report directory; files are written to a temporary name and renamed when complete.
///
/// A staged directory ([`OutputDir::claim_staged`]) is written whole under a hidden sibling
/// name, `.NAME.partial-PID`, and renamed to its name by [`OutputDir::commit`]: whenever the
/// process stops, the final name holds either nothing new or a complete directory. Dropped
/// without a commit (an error), it removes its staging directory.
#[derive(Debug)]
pub struct OutputDir {
    /// Where files are written now: the staging directory while staged.
    path: PathBuf,
    /// The final name of a staged directory, until it is committed.
    staged_for: Option<PathBuf>,
    /// Staged under a name of its own choosing: at the commit, `-2`, `-3`, ... is appended
    /// to the final name while it is taken.
    unique: bool,
    /// Created by [`OutputDir::create_unique`]: removed again if nothing was written to it.
    created: bool,
}

impl OutputDir {
    /// Claims `path` to write files into in place: refused when it exists unless `force`.
    /// Nothing is created yet.
    pub fn claim(path: &Path, force: bool) -> Result<OutputDir, ReportError> {
        if path.exists() && !force {
            return Err(ReportError::Exists(path.to_path_buf()));
        }
        Ok(OutputDir {
            path: path.to_path_buf(),
            staged_for: None,
            unique: false,
            created: false,
        })
    }

    /// Creates a new directory under `parent` named `{prefix}<UTC time to the millisecond>Z`
    /// (colons left out so the name is portable), with `-2`, `-3`, ... appended when that
    /// name is taken. Creating it is the claim (`create_dir` fails on an existing
    /// directory), so two commands started at the same moment never share one. If the
    /// command fails before writing a file, the empty directory is removed again.
    pub fn create_unique(parent: &Path, prefix: &str) -> Result<OutputDir, ReportError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ReportError::Io { path, source }
        };
        fs::create_dir_all(parent).map_err(io(parent))?;
        let stem = unique_stem(prefix);
        for n in 1u32.. {
            let path = match n {
                1 => parent.join(&stem),
                _ => parent.join(format!("{stem}-{n}")),
            };
            match fs::create_dir(&path) {
                Ok(()) => {
                    return Ok(OutputDir {
                        path,
                        staged_for: None,
                        unique: false,
                        created: true,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&path)(e)),
            }
        }
        unreachable!("a free name is found before u32::MAX attempts")
    }

    /// A directory under `parent` named `{prefix}<UTC time to the millisecond>Z`, written whole
    /// under a temporary sibling name like [`OutputDir::claim_staged`]; the name is made
    /// unique (`-2`, `-3`, ...) at the commit, so two commands started at once never share one.
    pub fn claim_staged_unique(parent: &Path, prefix: &str) -> Result<OutputDir, ReportError> {
        let mut out = OutputDir::claim_staged(&parent.join(unique_stem(prefix)), false)?;
        out.unique = true;
        Ok(out)
    }

    /// Claims `path` to be written whole under a temporary sibling name and renamed at the
    /// end: refused when it exists unless `force`, and then unless it is an empty directory or
    /// a run directory (with a `manifest.json`) or a partial result of one (`partial.json`),
    /// which the rename replaces whole, not before. Call [`OutputDir::create`] before writing.
    pub fn claim_staged(path: &Path, force: bool) -> Result<OutputDir, ReportError> {
        let claimed = OutputDir::claim(path, force)?;
        if path.exists() {
            let empty = fs::read_dir(path).is_ok_and(|mut d| d.next().is_none());
            let run = ["manifest.json", "partial.json"]
                .iter()
                .any(|f| path.join(f).is_file());
            if !empty && !run {
                return Err(ReportError::NotARun(path.to_path_buf()));
            }
        }
        let name = path
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        Ok(OutputDir {
            path: sibling(path, &format!(".{name}.partial-{}", std::process::id())),
            staged_for: Some(claimed.path.clone()),
            unique: false,
            created: false,
        })
    }

    /// The directory files are written to now (the staging directory until committed).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory's final name.
    pub fn final_path(&self) -> &Path {
        self.staged_for.as_deref().unwrap_or(&self.path)
    }

    /// Creates the staging directory (and the final name's parents); it must not exist.
    pub fn create(&self) -> Result<(), ReportError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ReportError::Io { path, source }
        };
        if let Some(parent) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io(parent))?;
        }
        fs::create_dir(&self.path).map_err(io(&self.path))
    }

    /// Renames a staged directory to its final name, replacing what is there (the old
    /// directory is moved aside first, then removed), and returns the final name.
    pub fn commit(mut self) -> Result<PathBuf, ReportError> {
        let Some(target) = self.staged_for.take() else {
            return Ok(self.path.clone());
        };
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ReportError::Io { path, source }
        };
        let name = target
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        if self.unique {
            return self.commit_unique(target);
        }
        let old = sibling(&target, &format!(".{name}.old-{}", std::process::id()));
        let replaced = target.exists();
        if replaced {
            fs::rename(&target, &old).map_err(io(&target))?;
        }
        if let Err(source) = fs::rename(&self.path, &target) {
            if replaced {
                let _ = fs::rename(&old, &target);
            }
            self.staged_for = Some(target.clone());
            return Err(ReportError::Io {
                path: target,
                source,
            });
        }
        if replaced {
            fs::remove_dir_all(&old).map_err(io(&old))?;
        }
        self.path = target.clone();
        Ok(target)
    }

    /// Renames the staging directory to `target`, or `target-2`, `target-3`, ... when taken.
    fn commit_unique(mut self, target: PathBuf) -> Result<PathBuf, ReportError> {
        let name = target
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        for n in 1u32.. {
            let candidate = match n {
                1 => target.clone(),
                _ => sibling(&target, &format!("{name}-{n}")),
            };
            if candidate.exists() {
                continue;
            }
            match fs::rename(&self.path, &candidate) {
                Ok(()) => {
                    self.path = candidate.clone();
                    return Ok(candidate);
                }
                // Taken in the meantime by a directory with files: the next name.
                Err(_) if candidate.exists() => continue,
                Err(source) => {
                    self.staged_for = Some(target);
                    return Err(ReportError::Io {
                        path: candidate,
                        source,
                    });
                }
            }
        }
        unreachable!("a free name is found before u32::MAX attempts")
    }

    /// Writes each file (name inside the directory, bytes) atomically, in order. Returns the
    /// paths written.
    pub fn write_files<N: AsRef<str>>(
        &self,
        files: &[(N, Vec<u8>)],
    ) -> Result<Vec<PathBuf>, ReportError> {
        files
            .iter()
            .map(|(name, bytes)| self.write_file(name.as_ref(), bytes))
            .collect()
    }

    /// Writes one file (which may sit in a subdirectory) by the one output rule of
    /// [`workloads::output`]: staged and renamed over a regular file, in place over a FIFO or
    /// device.
    /// A staged directory is never created again here: once removed (an interrupted run), it
    /// stays removed.
    pub fn write_file(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, ReportError> {
        let target = self.path.join(name);
        let dir = target.parent().unwrap_or(&self.path).to_path_buf();
        let made = if self.staged_for.is_some() {
            create_below(&self.path, &dir)
        } else {
            fs::create_dir_all(&dir)
        };
        made.map_err(|source| ReportError::Io {
            path: dir.clone(),
            source,
        })?;
        workloads::output::write_file(&target, bytes).map_err(|source| ReportError::Io {
            path: target.clone(),
            source,
        })?;
        Ok(target)
    }
}

impl Drop for OutputDir {
    /// An uncommitted staging directory is removed, and so is a directory this claim created
    /// that is still empty (the command failed before writing; `remove_dir` leaves a
    /// directory with files alone).
    fn drop(&mut self) {
        if self.staged_for.is_some() {
            let _ = fs::remove_dir_all(&self.path);
        } else if self.created {
            let _ = fs::remove_dir(&self.path);
        }
    }
}

/// `{prefix}<UTC time to the millisecond>Z`, colons left out so the name is portable.
fn unique_stem(prefix: &str) -> String {
    format!(
        "{prefix}{}",
        humantime::format_rfc3339_millis(std::time::SystemTime::now())
            .to_string()
            .replace(':', "")
    )
}

/// `path`'s sibling called `name`.
fn sibling(path: &Path, name: &str) -> PathBuf {
    path.with_file_name(name)
}

/// Creates the directories from `root` (which must exist) down to `dir`, one level at a time.
fn create_below(root: &Path, dir: &Path) -> std::io::Result<()> {
    let Ok(rest) = dir.strip_prefix(root) else {
        return fs::create_dir_all(dir);
    };
    let mut at = root.to_path_buf();
    if !at.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the output directory was removed",
        ));
    }
    for part in rest.components() {
        at.push(part);
        match fs::create_dir(&at) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_directory_is_refused_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let err = OutputDir::claim(dir.path(), false).unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        assert!(OutputDir::claim(dir.path(), true).is_ok());
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_staged_directory_appears_whole_at_its_commit() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let out = OutputDir::claim_staged(&run, false).unwrap();
        out.create().unwrap();
        out.write_file("charts/a.svg", b"<svg/>").unwrap();
        out.write_file("summary.csv", b"x\n").unwrap();
        assert!(
            !run.exists(),
            "nothing under the final name before the commit"
        );
        assert_eq!(names(dir.path()).len(), 1);
        assert_eq!(out.commit().unwrap(), run);
        assert_eq!(names(dir.path()), ["run"]);
        assert_eq!(names(&run), ["charts", "summary.csv"]);

        // --force replaces the whole directory, at the commit only; only a run directory.
        let not_a_run = dir.path().join("mine");
        fs::create_dir(&not_a_run).unwrap();
        fs::write(not_a_run.join("notes.txt"), b"mine").unwrap();
        let err = OutputDir::claim_staged(&not_a_run, true).unwrap_err();
        assert!(
            err.to_string().contains("not a shardlab run directory"),
            "{err}"
        );
        fs::remove_dir_all(&not_a_run).unwrap();
        fs::write(run.join("manifest.json"), b"{}").unwrap();
        let out = OutputDir::claim_staged(&run, true).unwrap();
        out.create().unwrap();
        out.write_file("other.csv", b"y\n").unwrap();
        assert_eq!(names(&run), ["charts", "manifest.json", "summary.csv"]);
        out.commit().unwrap();
        assert_eq!(names(dir.path()), ["run"]);
        assert_eq!(names(&run), ["other.csv"]);
        assert!(OutputDir::claim_staged(&run, false).is_err());
    }

    #[test]
    fn an_uncommitted_or_removed_staging_directory_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::claim_staged(&dir.path().join("run"), false).unwrap();
        out.create().unwrap();
        out.write_file("a.csv", b"a").unwrap();
        drop(out);
        assert!(names(dir.path()).is_empty());
        // Removed from outside (an interrupted run): later writes fail, nothing is recreated.
        let out = OutputDir::claim_staged(&dir.path().join("run"), false).unwrap();
        out.create().unwrap();
        fs::remove_dir_all(out.path()).unwrap();
        assert!(out.write_file("charts/a.svg", b"<svg/>").is_err());
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn default_directories_created_at_once_never_collide() {
        let dir = tempfile::tempdir().unwrap();
        let outs: Vec<OutputDir> = (0..5)
            .map(|_| OutputDir::create_unique(dir.path(), "plan-").unwrap())
            .collect();
        let mut paths: Vec<&Path> = outs.iter().map(OutputDir::path).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), 5);
        assert!(paths.iter().all(|p| p.is_dir()));
        let name = paths[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("plan-") && name.contains('.') && !name.contains(':'),
            "{name}"
        );
        // Each is created on claiming; the empty ones go when dropped, a written one stays.
        outs[0].write_file("a.csv", b"x").unwrap();
        let kept = outs[0].path().to_path_buf();
        drop(outs);
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
        assert!(kept.join("a.csv").is_file());
    }

    #[test]
    fn a_staged_default_directory_takes_the_next_free_name_at_its_commit() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::claim_staged_unique(dir.path(), "run-").unwrap();
        out.create().unwrap();
        out.write_file("a.csv", b"x").unwrap();
        // Another command took the name meanwhile.
        let taken = out.final_path().to_path_buf();
        fs::create_dir(&taken).unwrap();
        fs::write(taken.join("other.csv"), b"y").unwrap();
        let committed = out.commit().unwrap();
        let name = committed
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(name.starts_with("run-") && name.ends_with("Z-2"), "{name}");
        assert!(committed.join("a.csv").is_file() && taken.join("other.csv").is_file());
        assert_eq!(names(dir.path()).len(), 2);
    }

    #[test]
    fn files_are_written_whole_and_no_temporary_remains() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::claim(&dir.path().join("run"), false).unwrap();
        let p = out.write_file("charts/a.svg", b"<svg/>").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"<svg/>");
        let names: Vec<_> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("a.svg")]);
    }
}
