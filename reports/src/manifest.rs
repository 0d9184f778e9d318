//! The manifest written beside every report: what was run, by which version, on what input.

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Configuration, version, seed, input checksums and timing of one run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `shardlab`.
    pub tool: String,
    /// The shardlab version.
    pub version: String,
    /// The command line as given.
    pub command_line: Vec<String>,
    /// The random seed of synthetic workloads.
    pub seed: u64,
    /// Every parameter of the run, resolved (defaults included).
    pub parameters: serde_json::Value,
    /// Input files with their sizes and checksums.
    pub inputs: Vec<InputFile>,
    /// Worker threads used.
    pub threads: usize,
    /// Start time, UTC, RFC 3339.
    pub started_utc: String,
    /// Wall-clock duration of the run in seconds.
    pub duration_secs: f64,
    /// Wall-clock seconds of each phase of the replays (`warm-up`, `replay`, `remap`, ...,
    /// summed over workloads); empty in older manifests.
    #[serde(default)]
    pub phase_secs: std::collections::BTreeMap<String, f64>,
}

/// An input file and its checksum.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct InputFile {
    /// The path as given.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// XXH3-128 of the file's bytes, as 32 hex digits (fast enough for multi-GB traces).
    pub xxh3_128: String,
    /// For a trace: the format it was read as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// For a trace read with `--skip-invalid`: the malformed records skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_records_skipped: Option<u64>,
}

impl InputFile {
    /// The record of a file already read whole: its `bytes` as read from `path`.
    pub fn of_bytes(path: &Path, bytes: &[u8]) -> InputFile {
        InputFile {
            path: path.display().to_string(),
            bytes: bytes.len() as u64,
            xxh3_128: format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes)),
            format: None,
            invalid_records_skipped: None,
        }
    }

    /// Reads `path` once, streaming, and records its size and checksum.
    pub fn checksum(path: &Path) -> std::io::Result<InputFile> {
        let mut file = std::fs::File::open(path)?;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut bytes = 0u64;
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            bytes += n as u64;
        }
        Ok(InputFile {
            path: path.display().to_string(),
            bytes,
            xxh3_128: format!("{:032x}", hasher.digest128()),
            format: None,
            invalid_records_skipped: None,
        })
    }
}

/// The current time as RFC 3339 UTC with seconds, e.g. `2026-11-30T01:02:03Z`.
pub fn now_utc() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_depends_on_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"key\n1\n").unwrap();
        std::fs::write(&b, b"key\n2\n").unwrap();
        let (x, y) = (
            InputFile::checksum(&a).unwrap(),
            InputFile::checksum(&b).unwrap(),
        );
        assert_eq!(x.bytes, 6);
        assert_ne!(x.xxh3_128, y.xxh3_128);
        assert_eq!(x.xxh3_128, InputFile::checksum(&a).unwrap().xxh3_128);
    }
}
