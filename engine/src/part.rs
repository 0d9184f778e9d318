//! Partial runs (`run --part I/K`): which share of the trace each part reads, and the
//! engine-independent header of a partial result that `shardlab merge` checks before it
//! combines anything.
//!
//! **Shares.** A trace of several files (see [`workloads::trace::files`]) is cut into `K`
//! contiguous runs of whole files, balanced by their size on disk (file metadata only: no
//! part reads another part's files). Whole files, because a zstd or gzip stream cannot be
//! entered in the middle, and traces at this scale come as chunk files anyway; a part whose
//! share is empty (fewer files than parts) is a valid, empty partial.
//!
//! **Three steps.** Windows, the warm-up and the latency sample count events from the start
//! of the whole trace, so a part must know where its share starts before it measures:
//! 1. *count* (`run --part I/K`): each part counts the events of each of its files (a cheap
//!    pass) and part 0 also learns the warm-up, exactly as a single run does at the start of
//!    the whole trace (it reads at most the warm-up horizon, into the next files if its own
//!    are shorter), and writes its keys ([`WARMUP_FILE`]).
//! 2. *replay* (`run --part I/K --counts DIRS`): from the K count headers, ordered by part,
//!    each part knows the position of its first event in the whole trace (the events of every
//!    file before it, [`first_positions`]) and replays its share at those positions with the
//!    schemes built from part 0's warm-up keys, then writes every accumulator's state, one
//!    file per shard count ([`state_file`]). A changing layout (`range-dynamic`) changes with
//!    every event before it, so part 0 also replays the whole trace, in order, through the
//!    changing layouts of the run, in one pass per shard count, and writes their runs
//!    ([`layouts_file`]).
//! 3. *merge* (`shardlab merge DIRS`): adds the states up (exactly: see
//!    `engine::replay::Partial::merge`) and finishes them into the ordinary run directory.
//!
//! **Checks.** A header carries the partial format's version, the shardlab version, a hash of
//! the run's configuration (every option but the output, the thread count and the part
//! itself) and the part's index. [`check_set`] refuses a set whose parts disagree on any of
//! those, a part given twice, a missing part, and parts whose files do not follow one another
//! as the planned shares do: nothing is merged silently.
//!
//! **Seals.** Every file of a partial result is checked before anything is decoded. The seals
//! are checksums, not signatures: they catch damage and mix-ups, not a forger (who can
//! recompute them).
//! - `partial.json` is read only if it is a regular file of at most [`MAX_HEADER_BYTES`]; its
//!   `seal` field must be the XXH3-128 of the canonical JSON (keys sorted, compact) of the
//!   header without that field, and its bytes must be exactly those its writer makes of what
//!   it holds ([`PartialHeader::to_json`]): a flipped bit anywhere in it is refused.
//! - its `owned` list names every other file of the directory ([`WARMUP_FILE`], the
//!   [`state_file`]s and [`layouts_file`]s, each once: no other name, so no path out of the directory) with its size
//!   on disk, its decoded size and the XXH3-128 of its bytes. [`PartialHeader::read`] refuses a
//!   file listed but missing, a file present but not listed, anything that is not a regular
//!   file (a symbolic link, a FIFO, a device: the type is read with `symlink_metadata` before
//!   anything is opened, the file is opened with `O_NOFOLLOW | O_NONBLOCK` and its type checked
//!   again), a size other than the recorded one, and a checksum other than the recorded one. A
//!   file is read at most to its recorded size.
//! - [`read_binary`] checks the bytes again and decompresses them with a bounded zstd window
//!   and at most one byte past the recorded decoded size: a file must decode to exactly that
//!   size (a zstd bomb is refused once it passes it, never held whole). Each binary file starts
//!   with a [`Binding`]: the part index, the configuration hash, the stage and the file's name,
//!   which must be the header's: a state copied from another part or another run is refused
//!   even if the header was rewritten to list it.

use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The version of the partial-result format; a merge refuses any other. Version 3: the scan
/// fan-out state holds exact fan-outs (version 2's histogram rounded those above 2,048 up).
/// Version 4: every file is sealed (see the module doc). Version 5: part 0 may hold the runs
/// of changing layouts ([`layouts_file`]).
pub const PARTIAL_FORMAT_VERSION: u32 = 5;

/// The largest `partial.json` read.
pub const MAX_HEADER_BYTES: u64 = 16 << 20;

/// The name of a partial result's header file in its directory.
pub const HEADER_FILE: &str = "partial.json";

/// The file of part 0 holding the warm-up (`engine::replay::Warmup`).
pub const WARMUP_FILE: &str = "warmup.bin";

/// The file of a replayed part holding its accumulators' state for the `index`th shard
/// count of the run (`engine::replay::PartialState`).
pub fn state_file(index: usize) -> String {
    format!("state-{index}.bin")
}

/// The file of replayed part 0 holding the runs of the changing layouts over the whole trace
/// for the `index`th shard count of the run (`engine::changing::LayoutRunState`s, in the
/// order of the schemes).
pub fn layouts_file(index: usize) -> String {
    format!("layouts-{index}.bin")
}

/// The index `n` of a file named `file(n)`, if `name` is one.
fn numbered(name: &str, file: fn(usize) -> String) -> Option<usize> {
    let stem = file(0);
    let (prefix, suffix) = stem.split_once('0')?;
    let n = name
        .strip_prefix(prefix)?
        .strip_suffix(suffix)?
        .parse()
        .ok()?;
    (file(n) == name).then_some(n)
}

/// Which step of a partial run wrote a partial result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// `run --part I/K`: the events of each file counted (and, in part 0, the warm-up).
    Counted,
    /// `run --part I/K --counts DIRS`: the share replayed, its state written.
    Replayed,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Counted => "counted (run --part I/K)",
            Stage::Replayed => "replayed (run --part I/K --counts DIRS)",
        })
    }
}

/// What a binary file of a partial result belongs to, written before its value and checked
/// when it is read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// The part that wrote it.
    pub part: PartIndex,
    /// [`config_hash`] of the run.
    pub config_hash: String,
    /// The step that wrote it.
    pub stage: Stage,
    /// The file's name in its directory.
    pub name: String,
}

/// A file a partial result owns, as recorded in its header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnedFile {
    /// Its name in the directory.
    pub name: String,
    /// Its size on disk, in bytes.
    pub bytes: u64,
    /// Its size once decompressed, in bytes.
    pub decoded_bytes: u64,
    /// XXH3-128 of its bytes, hex.
    pub xxh3_128: String,
}

fn hex128(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

impl OwnedFile {
    /// Checks that `bytes`, read from `path`, are this file's: its size and checksum.
    fn check(&self, path: &Path, bytes: &[u8], fix: &str) -> Result<()> {
        if bytes.len() as u64 != self.bytes {
            bail!(
                "'{}' holds {} bytes, not the {} recorded in {HEADER_FILE} (truncated, damaged \
                 or replaced); {fix}",
                path.display(),
                bytes.len(),
                self.bytes
            );
        }
        if hex128(bytes) != self.xxh3_128 {
            bail!(
                "'{}' does not match its checksum in {HEADER_FILE} (damaged, or replaced by \
                 another file); {fix}",
                path.display()
            );
        }
        Ok(())
    }
}

/// Writes `value` to `dir/name` as a binary file (postcard of `binding` then `value`,
/// zstd-compressed), whole under a temporary name and then renamed, and returns its entry
/// for the header's `owned` list.
pub fn write_binary<T: Serialize>(dir: &Path, binding: &Binding, value: &T) -> Result<OwnedFile> {
    let bytes = postcard::to_stdvec(&(binding, value)).context("cannot encode a partial result")?;
    let packed = zstd::encode_all(bytes.as_slice(), 1).context("cannot compress")?;
    let path = dir.join(&binding.name);
    workloads::output::write_file(&path, &packed)
        .with_context(|| format!("cannot write '{}'", path.display()))?;
    Ok(OwnedFile {
        name: binding.name.clone(),
        bytes: packed.len() as u64,
        decoded_bytes: bytes.len() as u64,
        xxh3_128: hex128(&packed),
    })
}

/// The largest window a binary file's zstd frame may ask the decoder for (2^22 bytes: the
/// writer's level 1 uses at most 2^19), so a crafted frame cannot make the decoder allocate
/// more.
const MAX_WINDOW_LOG: u32 = 22;

/// What kind of file `meta` describes, for messages.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_symlink() {
        return "a symbolic link";
    }
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Opens `path` for reading without following a symbolic link and without waiting on a FIFO
/// (on Unix: `O_NOFOLLOW | O_NONBLOCK`; the type is checked again on the open file).
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Reads the regular file `path`, refusing anything else (a symbolic link, a FIFO, a device:
/// the type is read with `symlink_metadata` before anything is opened, and a FIFO is never
/// waited on) and anything longer than `limit` bytes; `fix` ends every message (what to do).
fn read_bounded(path: &Path, limit: u64, fix: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let shown = path.display();
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("'{shown}' is missing (the partial result is incomplete); {fix}")
        }
        Err(e) => bail!("cannot read '{shown}': {e}; {fix}"),
    };
    if !meta.file_type().is_file() {
        bail!(
            "'{shown}' is {} where a regular file is expected; {fix}",
            file_kind(&meta)
        );
    }
    if meta.len() > limit {
        bail!(
            "'{shown}' holds {} bytes, more than the {limit} expected; {fix}",
            meta.len()
        );
    }
    let file =
        open_regular(path).map_err(|e| anyhow::anyhow!("cannot read '{shown}': {e}; {fix}"))?;
    // The file opened may have replaced the one checked above.
    let opened = file
        .metadata()
        .map_err(|e| anyhow::anyhow!("cannot read '{shown}': {e}; {fix}"))?;
    if !opened.file_type().is_file() {
        bail!(
            "'{shown}' is {} where a regular file is expected; {fix}",
            file_kind(&opened)
        );
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read '{shown}': {e}; {fix}"))?;
    if bytes.len() as u64 > limit {
        bail!("'{shown}' grew past the {limit} bytes expected while it was read; {fix}");
    }
    Ok(bytes)
}

/// Decompresses the zstd stream `packed` of `path`, which must decode to exactly `expected`
/// bytes: decoding stops past them (a zstd bomb costs at most `expected + 1` bytes) and the
/// decoder's window is bounded by [`MAX_WINDOW_LOG`].
fn decode_bounded(path: &Path, packed: &[u8], expected: u64, fix: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let shown = path.display();
    let damaged = |e: std::io::Error| anyhow::anyhow!("'{shown}' is damaged ({e}); {fix}");
    let mut decoder = zstd::stream::read::Decoder::new(packed).map_err(damaged)?;
    decoder.window_log_max(MAX_WINDOW_LOG).map_err(damaged)?;
    let mut bytes = Vec::new();
    decoder
        .take(expected.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(damaged)?;
    if bytes.len() as u64 > expected {
        bail!(
            "'{shown}' decodes to more than the {expected} bytes recorded in {HEADER_FILE} \
             (decoding stopped there); {fix}"
        );
    }
    if (bytes.len() as u64) < expected {
        bail!(
            "'{shown}' decodes to {} bytes, not the {expected} recorded in {HEADER_FILE}; {fix}",
            bytes.len()
        );
    }
    Ok(bytes)
}

/// Reads the binary file `name` of the partial result in `dir` whose header is `header`
/// (already checked by [`PartialHeader::read`]): its bytes are checked against the header's
/// entry again, decompressed at most to the recorded size, and its [`Binding`] must be the
/// header's.
pub fn read_binary<T: serde::de::DeserializeOwned>(
    dir: &Path,
    header: &PartialHeader,
    name: &str,
) -> Result<T> {
    let path = dir.join(name);
    let fix = header.rerun();
    let entry = header
        .owned
        .iter()
        .find(|f| f.name == name)
        .with_context(|| {
            format!(
                "'{}' is not listed in its {HEADER_FILE} (the partial result is incomplete); \
                 {fix}",
                path.display()
            )
        })?;
    let packed = read_bounded(&path, entry.bytes, &fix)?;
    entry.check(&path, &packed, &fix)?;
    let bytes = decode_bounded(&path, &packed, entry.decoded_bytes, &fix)?;
    let (binding, value): (Binding, T) = postcard::from_bytes(&bytes)
        .with_context(|| format!("'{}' is damaged; {fix}", path.display()))?;
    let want = header.binding(name);
    if binding != want {
        return Err(foreign(&path, &binding, &want, &fix));
    }
    Ok(value)
}

/// Why the [`Binding`] `got`, read from `path`, is not the `want` of the header listing it.
fn foreign(path: &Path, got: &Binding, want: &Binding, fix: &str) -> anyhow::Error {
    let shown = path.display();
    if got.config_hash != want.config_hash {
        anyhow::anyhow!(
            "'{shown}' belongs to another run (configuration {}, not this part's {}): it was \
             copied from part {} of a run with other options; {fix}",
            got.config_hash,
            want.config_hash,
            got.part
        )
    } else if got.part != want.part {
        anyhow::anyhow!(
            "'{shown}' belongs to another part of this run (part {}, not {}): it was copied \
             from that part's directory; {fix}",
            got.part,
            want.part
        )
    } else {
        anyhow::anyhow!(
            "'{shown}' is this part's '{}' of step {}, not its '{}' of step {}: it was renamed \
             or copied from another step; {fix}",
            got.name,
            got.stage,
            want.name,
            want.stage
        )
    }
}

/// The directories of `patterns` (each a directory or a glob pattern of directories,
/// expanded in sorted order), for `--counts` and `merge`.
pub fn expand_dirs(patterns: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for p in patterns {
        let text = p.to_string_lossy();
        if p.exists() || !text.contains(['*', '?', '[']) {
            dirs.push(p.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = glob::glob(&text)
            .with_context(|| format!("'{text}' is not a valid pattern"))?
            .filter_map(std::result::Result::ok)
            .filter(|d| d.is_dir())
            .collect();
        if found.is_empty() {
            bail!("'{text}' matches no directory");
        }
        found.sort();
        dirs.extend(found);
    }
    Ok(dirs)
}

/// Part `index` of `count` (0-based, as a Slurm array task id or a Kubernetes completion
/// index are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartIndex {
    /// This part, `0..count`.
    pub index: u32,
    /// How many parts the run is cut into (at least 1).
    pub count: u32,
}

impl std::str::FromStr for PartIndex {
    type Err = String;

    /// Parses `I/K`, e.g. `0/4`.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("'{text}' is not a part I/K with 0 <= I < K (e.g. 0/4 .. 3/4)");
        let (i, k) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            k.trim().parse().map_err(|_| bad())?,
        );
        if index >= count {
            return Err(bad());
        }
        Ok(PartIndex { index, count })
    }
}

impl std::fmt::Display for PartIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The files (indices into `sizes`, the files' sizes in bytes, in trace order) that part
/// `part` reads: file `j` goes to part `floor(K x bytes before j / all bytes)`, so shares are
/// contiguous, in order, and near `1/K` of the bytes each (a file is never cut).
pub fn share(sizes: &[u64], part: PartIndex) -> Range<usize> {
    let total: u128 = sizes.iter().map(|&s| u128::from(s)).sum::<u128>().max(1);
    let k = u128::from(part.count);
    let mut before = 0u128;
    let owner: Vec<u32> = sizes
        .iter()
        .map(|&s| {
            let p = (k * before / total).min(k - 1) as u32;
            before += u128::from(s);
            p
        })
        .collect();
    let start = owner.partition_point(|&p| p < part.index);
    let end = owner.partition_point(|&p| p <= part.index);
    start..end
}

/// One file of a part's share, as the part read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartFile {
    /// The path as the part was given it.
    pub path: String,
    /// Its position in the whole trace's list of files.
    pub position: usize,
    /// Size in bytes (as stored).
    pub bytes: u64,
    /// XXH3-128 of its bytes, hex.
    pub xxh3_128: String,
    /// Events read from it.
    pub events: u64,
    /// The format it was read as.
    pub format: String,
    /// With `--skip-invalid`: the malformed records skipped.
    pub invalid_records_skipped: Option<u64>,
}

/// The header of a partial result (`DIR/partial.json`): what it is a part of, and which
/// events it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartialHeader {
    /// [`PARTIAL_FORMAT_VERSION`] of the shardlab that wrote it.
    pub format_version: u32,
    /// The shardlab version that wrote it.
    pub tool_version: String,
    /// [`config_hash`] of the run's options.
    pub config_hash: String,
    /// Which step wrote it.
    pub stage: Stage,
    /// Which part this is.
    pub part: PartIndex,
    /// The `shardlab run` command line of the part (the configuration `merge` finishes
    /// with).
    pub command_line: Vec<String>,
    /// The key type of the part's files (none when the part has no file).
    pub key_type: Option<String>,
    /// The trace's label in reports.
    pub label: String,
    /// Events of the whole trace's warm-up (known from the replay step on).
    pub warmup_events: Option<u64>,
    /// How many files the whole trace has.
    pub trace_files: usize,
    /// The files of this part's share, in order.
    pub files: Vec<PartFile>,
    /// Every other file of the partial result's directory.
    pub owned: Vec<OwnedFile>,
    /// XXH3-128 of the header's canonical JSON without this field (see the module doc).
    pub seal: String,
}

impl PartialHeader {
    /// Events of this part.
    pub fn events(&self) -> u64 {
        self.files.iter().map(|f| f.events).sum()
    }

    /// The [`Binding`] of this part's file `name`.
    pub fn binding(&self, name: &str) -> Binding {
        Binding {
            part: self.part,
            config_hash: self.config_hash.clone(),
            stage: self.stage,
            name: name.to_string(),
        }
    }

    /// The seal of this header: XXH3-128 of its canonical JSON without `seal`.
    pub fn compute_seal(&self) -> Result<String> {
        let mut value = serde_json::to_value(self)?;
        if let Some(map) = value.as_object_mut() {
            map.remove("seal");
        }
        Ok(hex128(value.to_string().as_bytes()))
    }

    /// Sets `seal` to [`compute_seal`](Self::compute_seal) (after any change of the header).
    pub fn reseal(&mut self) -> Result<()> {
        self.seal = self.compute_seal()?;
        Ok(())
    }

    /// The text of `partial.json` for this header, byte for byte: pretty JSON and a newline.
    /// [`read`](Self::read) refuses a file whose bytes are not this text of what it holds, so
    /// no byte of it can change unnoticed (not even one the parser would ignore).
    pub fn to_json(&self) -> Result<Vec<u8>> {
        let mut json = serde_json::to_vec_pretty(self)?;
        json.push(b'\n');
        Ok(json)
    }

    /// What to do about a damaged file of this part.
    pub fn rerun(&self) -> String {
        format!(
            "rerun part {} (step {}) of the run into a new directory",
            self.part, self.stage
        )
    }

    /// Reads `DIR/partial.json` and checks its seal and every file of `DIR` against it (see
    /// the module doc), before anything is decoded.
    pub fn read(dir: &Path) -> Result<PartialHeader> {
        let path = dir.join(HEADER_FILE);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
                "'{}' is not a partial result (no {HEADER_FILE}; `run --part I/K --out DIR` \
                 writes one)",
                dir.display()
            ),
            _ => {}
        }
        let fix = "rerun the part that wrote this directory";
        let bytes = read_bounded(&path, MAX_HEADER_BYTES, fix)?;
        let damaged = || {
            format!(
                "'{}' is not a partial-result header or is damaged; {fix}",
                path.display()
            )
        };
        // The format version first, so that an older header is named as such.
        let value: serde_json::Value = serde_json::from_slice(&bytes).with_context(damaged)?;
        if let Some(version) = value.get("format_version").and_then(|v| v.as_u64()) {
            if version != u64::from(PARTIAL_FORMAT_VERSION) {
                bail!(
                    "'{}' is a partial result of format version {version} but this shardlab \
                     ({}) reads version {PARTIAL_FORMAT_VERSION}; rerun that part with this \
                     shardlab",
                    path.display(),
                    env!("CARGO_PKG_VERSION")
                );
            }
        }
        let header: PartialHeader = serde_json::from_value(value).with_context(damaged)?;
        if header.compute_seal()? != header.seal || header.to_json()? != bytes {
            bail!(
                "'{}' does not match its seal (the file was changed or damaged); {}",
                path.display(),
                header.rerun()
            );
        }
        header.check_files(dir)?;
        Ok(header)
    }

    /// Checks that `dir` holds exactly the files of `owned` besides the header, each named as
    /// a partial result's files are, once, and a regular file of its recorded size and
    /// checksum.
    fn check_files(&self, dir: &Path) -> Result<()> {
        let fix = self.rerun();
        let header = dir.join(HEADER_FILE);
        // Only a partial result's own names (never a path out of `dir`), each once.
        for (i, f) in self.owned.iter().enumerate() {
            let known = f.name == WARMUP_FILE
                || numbered(&f.name, state_file).is_some()
                || numbered(&f.name, layouts_file).is_some();
            if !known {
                bail!(
                    "'{}' lists '{}', which is not a partial result's file; {fix}",
                    header.display(),
                    f.name.escape_debug()
                );
            }
            if self.owned[..i].iter().any(|g| g.name == f.name) {
                bail!("'{}' lists '{}' twice; {fix}", header.display(), f.name);
            }
        }
        let entries =
            std::fs::read_dir(dir).with_context(|| format!("cannot list '{}'", dir.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list '{}'", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name != HEADER_FILE && !self.owned.iter().any(|f| f.name == name) {
                bail!(
                    "'{}' is not listed in {HEADER_FILE}: the directory is not as its part \
                     wrote it; remove the file or {fix}",
                    dir.join(&name).display()
                );
            }
        }
        for f in &self.owned {
            let path = dir.join(&f.name);
            let bytes = read_bounded(&path, f.bytes, &fix)?;
            f.check(&path, &bytes, &fix)?;
        }
        Ok(())
    }
}

/// The hash of a run's configuration: XXH3-128 of its options as JSON, without those that do
/// not change a number (`out`, `force`, `quiet`, `threads`) and without the part itself.
pub fn config_hash(options: &serde_json::Value) -> String {
    let mut options = options.clone();
    if let Some(map) = options.as_object_mut() {
        for key in ["out", "force", "quiet", "threads", "part", "counts"] {
            map.remove(key);
        }
    }
    // serde_json's maps are sorted by key: the text is canonical.
    let text = options.to_string();
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
}

/// Checks that `parts` (each with the directory it was read from) are the `K` parts of one
/// run, each once, written by this format version at step `stage`, and returns them in part
/// order.
pub fn check_set(
    mut parts: Vec<(PathBuf, PartialHeader)>,
    stage: Stage,
) -> Result<Vec<(PathBuf, PartialHeader)>> {
    let Some((first_dir, first)) = parts.first().cloned() else {
        bail!("no partial result given");
    };
    for (dir, h) in &parts {
        let name = dir.display();
        if h.stage != stage {
            bail!(
                "'{name}' is a partial result of step {} where step {stage} is needed",
                h.stage
            );
        }
        if h.format_version != PARTIAL_FORMAT_VERSION {
            bail!(
                "'{name}' is a partial result of format version {} but this shardlab \
                 ({}) merges version {PARTIAL_FORMAT_VERSION}; rerun that part with this \
                 shardlab",
                h.format_version,
                env!("CARGO_PKG_VERSION")
            );
        }
        let differs = |what: &str, a: &dyn std::fmt::Display, b: &dyn std::fmt::Display| {
            anyhow::anyhow!(
                "'{name}' and '{}' are parts of different runs ({what} {a} vs {b}); every \
                 part must be run with the same shardlab and the same options",
                first_dir.display()
            )
        };
        if h.tool_version != first.tool_version {
            return Err(differs(
                "shardlab version",
                &h.tool_version,
                &first.tool_version,
            ));
        }
        if h.config_hash != first.config_hash {
            return Err(differs("configuration", &h.config_hash, &first.config_hash));
        }
        if let (Some(a), Some(b)) = (&h.key_type, &first.key_type) {
            if a != b {
                return Err(differs("key type", a, b));
            }
        }
        if h.warmup_events != first.warmup_events {
            return Err(differs(
                "warm-up events",
                &format!("{:?}", h.warmup_events),
                &format!("{:?}", first.warmup_events),
            ));
        }
        if h.part.count != first.part.count || h.trace_files != first.trace_files {
            return Err(differs(
                "parts/files",
                &format!("{}/{}", h.part.count, h.trace_files),
                &format!("{}/{}", first.part.count, first.trace_files),
            ));
        }
    }
    parts.sort_by_key(|(_, h)| h.part.index);
    for pair in parts.windows(2) {
        if pair[0].1.part == pair[1].1.part {
            bail!(
                "part {} is given twice ('{}' and '{}'); give each part once",
                pair[0].1.part,
                pair[0].0.display(),
                pair[1].0.display()
            );
        }
    }
    let count = first.part.count;
    let have: Vec<u32> = parts.iter().map(|(_, h)| h.part.index).collect();
    let missing: Vec<String> = (0..count)
        .filter(|i| !have.contains(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "part(s) {} missing: a merge needs all {count} parts of the run",
            missing.join(", ")
        );
    }
    // The shares must follow one another: file positions 0, 1, 2, ... once each.
    let mut next = 0;
    for (dir, h) in &parts {
        for f in &h.files {
            if f.position != next {
                bail!(
                    "'{}' holds file {} ('{}') where file {next} of the trace was expected; \
                     the parts do not cover the trace once, in order",
                    dir.display(),
                    f.position,
                    f.path
                );
            }
            next += 1;
        }
    }
    if next != first.trace_files {
        bail!(
            "the parts hold {next} of the trace's {} files",
            first.trace_files
        );
    }
    Ok(parts)
}

/// The global position of the first event of each part, in part order: the events of every
/// part before it.
pub fn first_positions(parts: &[(PathBuf, PartialHeader)]) -> Vec<u64> {
    parts
        .iter()
        .scan(0u64, |before, (_, h)| {
            let first = *before;
            *before += h.events();
            Some(first)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_parse_and_refuse_what_is_not_one() {
        assert_eq!(
            "2/7".parse::<PartIndex>(),
            Ok(PartIndex { index: 2, count: 7 })
        );
        for bad in ["7/7", "1/0", "x/2", "3", "-1/2"] {
            let e = bad.parse::<PartIndex>().unwrap_err();
            assert!(e.contains("0 <= I < K"), "{bad}: {e}");
        }
    }

    #[test]
    fn shares_are_contiguous_balanced_and_cover_every_file_once() {
        let sizes = [10, 10, 10, 10, 40, 5, 5, 10];
        for k in 1..=10u32 {
            let shares: Vec<Range<usize>> = (0..k)
                .map(|index| share(&sizes, PartIndex { index, count: k }))
                .collect();
            let mut next = 0;
            for s in &shares {
                assert_eq!(s.start, next, "k={k}: {shares:?}");
                next = s.end;
            }
            assert_eq!(next, sizes.len(), "k={k}");
        }
        // Two parts of 100 bytes: a file goes to the part where it starts; the 40-byte file
        // starts at byte 40, in the first half.
        let two: Vec<_> = (0..2)
            .map(|index| share(&sizes, PartIndex { index, count: 2 }))
            .collect();
        assert_eq!(two, [0..5, 5..8]);
        // More parts than files: some parts are empty, none holds a file twice.
        assert_eq!(share(&[1], PartIndex { index: 0, count: 3 }), 0..1);
        assert!(share(&[1], PartIndex { index: 2, count: 3 }).is_empty());
    }

    fn header(index: u32, count: u32, files: &[(usize, u64)]) -> (PathBuf, PartialHeader) {
        (
            PathBuf::from(format!("p{index}")),
            PartialHeader {
                format_version: PARTIAL_FORMAT_VERSION,
                tool_version: env!("CARGO_PKG_VERSION").into(),
                config_hash: "abc".into(),
                stage: Stage::Counted,
                part: PartIndex { index, count },
                command_line: Vec::new(),
                key_type: Some("u64".into()),
                label: "t".into(),
                warmup_events: None,
                trace_files: 3,
                files: files
                    .iter()
                    .map(|&(position, events)| PartFile {
                        path: format!("t{position}"),
                        position,
                        bytes: 1,
                        xxh3_128: String::new(),
                        events,
                        format: "csv".into(),
                        invalid_records_skipped: None,
                    })
                    .collect(),
                owned: Vec::new(),
                seal: String::new(),
            },
        )
    }

    #[test]
    fn a_complete_set_is_ordered_and_positioned() {
        let set = vec![header(1, 2, &[(2, 5)]), header(0, 2, &[(0, 10), (1, 7)])];
        let parts = check_set(set, Stage::Counted).unwrap();
        assert_eq!(parts[0].1.part.index, 0);
        assert_eq!(first_positions(&parts), [0, 17]);
    }

    #[test]
    fn bad_sets_are_refused_with_the_reason() {
        let refuse = |set: Vec<(PathBuf, PartialHeader)>, want: &str| {
            let e = format!("{:#}", check_set(set, Stage::Counted).unwrap_err());
            assert!(e.contains(want), "want '{want}' in: {e}");
        };
        let good = || vec![header(0, 2, &[(0, 10), (1, 7)]), header(1, 2, &[(2, 5)])];
        let mut set = good();
        set[1].1.config_hash = "other".into();
        refuse(set, "different runs (configuration");
        let mut set = good();
        set[1].1.format_version = 99;
        refuse(set, "format version 99");
        let mut set = good();
        set[1].1.tool_version = "0.0.1".into();
        refuse(set, "shardlab version");
        refuse(vec![good().remove(0)], "1/2 missing");
        let mut set = good();
        set.push(set[1].clone());
        refuse(set, "given twice");
        refuse(
            vec![header(0, 2, &[(0, 10)]), header(1, 2, &[(2, 5)])],
            "file 2 ('t2') where file 1",
        );
        refuse(vec![], "no partial result");
        let mut set = good();
        set[1].1.stage = Stage::Replayed;
        refuse(set, "step replayed");
        let mut set = good();
        set[0].1.key_type = Some("string".into());
        refuse(set, "key type");
    }

    #[test]
    fn a_binary_file_decodes_to_exactly_its_size_within_a_bounded_window() {
        let path = Path::new("state-0.bin");
        let packed = zstd::encode_all(&b"hello, world"[..], 1).unwrap();
        assert_eq!(
            decode_bounded(path, &packed, 12, "fix").unwrap(),
            b"hello, world"
        );
        let e = decode_bounded(path, &packed, 11, "fix").unwrap_err();
        assert!(format!("{e}").contains("more than the 11 bytes"), "{e}");
        let e = decode_bounded(path, &packed, 13, "fix").unwrap_err();
        assert!(format!("{e}").contains("decodes to 12 bytes"), "{e}");
        // A frame asking for a 2^27-byte window (one RLE block of 16 bytes): refused before
        // the decoder allocates it.
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, (27 - 10) << 3];
        frame.extend_from_slice(&((16u32 << 3) | (1 << 1) | 1).to_le_bytes()[..3]);
        frame.push(7);
        assert_eq!(zstd::decode_all(frame.as_slice()).unwrap(), [7; 16]);
        let e = decode_bounded(path, &frame, 16, "fix").unwrap_err();
        assert!(format!("{e}").contains("damaged"), "{e}");
    }

    #[test]
    fn a_header_is_read_only_as_written_and_lists_only_its_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let (_, mut h) = header(0, 1, &[(0, 10)]);
        h.trace_files = 1;
        h.owned = vec![write_binary(dir.path(), &h.binding(WARMUP_FILE), &42u64).unwrap()];
        h.reseal().unwrap();
        let json = dir.path().join(HEADER_FILE);
        let write = |h: &PartialHeader| std::fs::write(&json, h.to_json().unwrap()).unwrap();
        let refused = |want: &str| {
            let e = format!("{:#}", PartialHeader::read(dir.path()).unwrap_err());
            assert!(e.contains(want), "want '{want}' in: {e}");
        };
        write(&h);
        let read = PartialHeader::read(dir.path()).unwrap();
        assert_eq!(read, h);
        assert_eq!(
            read_binary::<u64>(dir.path(), &read, WARMUP_FILE).unwrap(),
            42
        );
        // The same header in other JSON (compact): its seal holds, its bytes are not the
        // writer's.
        std::fs::write(&json, serde_json::to_vec(&h).unwrap()).unwrap();
        refused("does not match its seal");
        // A listed name out of the directory, or twice, even sealed.
        for (name, want) in [
            ("../partial.json", "not a partial result's file"),
            ("state-01.bin", "not a partial result's file"),
            (WARMUP_FILE, "twice"),
        ] {
            let mut bad = h.clone();
            let mut extra = h.owned[0].clone();
            extra.name = name.into();
            bad.owned.push(extra);
            bad.reseal().unwrap();
            write(&bad);
            refused(want);
        }
        // Oversize: the header past its bound, a file past its recorded size.
        write(&h);
        std::fs::write(dir.path().join(WARMUP_FILE), vec![0; 1000]).unwrap();
        refused("holds 1000 bytes, more than the");
        std::fs::write(&json, vec![b' '; MAX_HEADER_BYTES as usize + 1]).unwrap();
        refused("more than the 16777216 expected");
    }

    #[test]
    fn the_configuration_hash_ignores_output_and_threads_only() {
        let a = serde_json::json!({"shards": 4, "out": "a", "threads": 2, "part": "0/2"});
        let b = serde_json::json!({"shards": 4, "out": "b", "quiet": true, "part": "1/2"});
        let c = serde_json::json!({"shards": 5, "out": "a"});
        assert_eq!(config_hash(&a), config_hash(&b));
        assert_ne!(config_hash(&a), config_hash(&c));
    }
}
