//! Writing a report directory without ever leaving a half-written file behind.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Exporter, ReportError, RunReport};

/// A report directory; files are written to a temporary name and renamed when complete.
#[derive(Debug)]
pub struct OutputDir {
    path: PathBuf,
    /// Created by [`OutputDir::create_unique`]: removed again if nothing was written to it.
    created: bool,
}

impl OutputDir {
    /// Claims `path`: refused when it exists unless `force`. Nothing is created yet.
    pub fn claim(path: &Path, force: bool) -> Result<OutputDir, ReportError> {
        if path.exists() && !force {
            return Err(ReportError::Exists(path.to_path_buf()));
        }
        Ok(OutputDir {
            path: path.to_path_buf(),
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
        let stem = format!(
            "{prefix}{}",
            humantime::format_rfc3339_millis(std::time::SystemTime::now())
                .to_string()
                .replace(':', "")
        );
        for n in 1u32.. {
            let path = match n {
                1 => parent.join(&stem),
                _ => parent.join(format!("{stem}-{n}")),
            };
            match fs::create_dir(&path) {
                Ok(()) => {
                    return Ok(OutputDir {
                        path,
                        created: true,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&path)(e)),
            }
        }
        unreachable!("a free name is found before u32::MAX attempts")
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renders every exporter first (so a rendering error writes nothing), then writes each
    /// file atomically. Returns the paths written.
    pub fn write_all(
        &self,
        report: &RunReport,
        exporters: &[Box<dyn Exporter>],
    ) -> Result<Vec<PathBuf>, ReportError> {
        let rendered: Vec<(&str, Vec<u8>)> = exporters
            .iter()
            .filter(|e| e.applies(report))
            .map(|e| Ok((e.file_name(), e.render(report)?)))
            .collect::<Result<_, ReportError>>()?;
        let mut written = Vec::with_capacity(rendered.len());
        for (name, bytes) in rendered {
            written.push(self.write_file(name, &bytes)?);
        }
        Ok(written)
    }

    /// Writes one file (which may sit in a subdirectory) to `.name.tmp`, then renames it.
    pub fn write_file(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, ReportError> {
        let target = self.path.join(name);
        let dir = target.parent().unwrap_or(&self.path).to_path_buf();
        fs::create_dir_all(&dir).map_err(|source| ReportError::Io {
            path: dir.clone(),
            source,
        })?;
        let file_name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{file_name}.tmp"));
        fs::write(&tmp, bytes).map_err(|source| ReportError::Io {
            path: tmp.clone(),
            source,
        })?;
        fs::rename(&tmp, &target).map_err(|source| ReportError::Io {
            path: target.clone(),
            source,
        })?;
        Ok(target)
    }
}

impl Drop for OutputDir {
    /// Removes a directory this claim created when it is still empty (the command failed
    /// before writing); `remove_dir` leaves a directory with files alone.
    fn drop(&mut self) {
        if self.created {
            let _ = fs::remove_dir(&self.path);
        }
    }
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
