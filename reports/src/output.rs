//! Writing a report directory without ever leaving a half-written file behind.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Exporter, ReportError, RunReport};

/// A report directory; files are written to a temporary name and renamed when complete.
#[derive(Debug)]
pub struct OutputDir {
    path: PathBuf,
}

impl OutputDir {
    /// Claims `path`: refused when it exists unless `force`. Nothing is created yet.
    pub fn claim(path: &Path, force: bool) -> Result<OutputDir, ReportError> {
        if path.exists() && !force {
            return Err(ReportError::Exists(path.to_path_buf()));
        }
        Ok(OutputDir {
            path: path.to_path_buf(),
        })
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
