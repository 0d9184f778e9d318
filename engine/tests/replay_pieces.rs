//! Traces decoded on the replay's workers ([`workloads::Piece`]: binary records, blocks of
//! csv lines): the same results as the same events decoded on the reader's thread, on any
//! thread count, and the first malformed record of the trace reported (with its byte offset
//! or line) whichever worker meets it first.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use engine::replay::{replay, ReplayConfig, WorkloadInput};
use schemes::SchemeSpec;
use workloads::trace::files::FileChain;
use workloads::trace::{self, oracle, TraceOptions};
use workloads::{EventChunk, EventSource, KeyType, Piece, WorkloadError};

/// A stream that only decodes (no raw pieces): what every source did before.
struct DecodedHere(Box<dyn EventSource>);

impl EventSource for DecodedHere {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        self.0.fill(chunk, max)
    }

    fn len_hint(&self) -> Option<u64> {
        self.0.len_hint()
    }
}

/// A stream that notes the threads that read it.
struct Watched {
    inner: Box<dyn EventSource>,
    readers: Arc<Mutex<HashSet<ThreadId>>>,
}

impl Watched {
    fn note(&self) {
        self.readers
            .lock()
            .unwrap()
            .insert(std::thread::current().id());
    }
}

impl EventSource for Watched {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        self.note();
        self.inner.fill(chunk, max)
    }

    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        self.note();
        self.inner.fill_piece(piece, max)
    }

    fn len_hint(&self) -> Option<u64> {
        self.inner.len_hint()
    }
}

type Open<'a> = dyn Fn() -> Result<Box<dyn EventSource>, WorkloadError> + Sync + 'a;

fn cfg() -> ReplayConfig {
    ReplayConfig {
        latency: None,
        chunk_events: 1000,
        window: 300,
        latency_sample: 5000,
        ..ReplayConfig::default()
    }
}

/// The whole result of replaying `open` through range, hash and ring on `threads` threads,
/// build times aside, or its error.
fn on_threads(threads: usize, open: &Open<'_>) -> String {
    through("range,hash,ring", threads, open)
}

/// [`on_threads`] through `schemes`.
fn through(schemes: &str, threads: usize, open: &Open<'_>) -> String {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let input = WorkloadInput {
        label: "t".into(),
        description: String::new(),
        key_type: KeyType::U64,
        open,
        watch: None,
    };
    let schemes = SchemeSpec::parse_list(schemes).unwrap();
    match pool.install(|| replay(&input, &schemes, &cfg(), &|_| {})) {
        Ok(mut r) => {
            r.schemes.iter_mut().for_each(|s| s.router.build_ns = None);
            format!("{r:?}")
        }
        Err(e) => format!("error: {e}"),
    }
}

/// An oracle-general trace of `n` Zipf-like keys, written in files of the given record counts.
fn oracle_files(dir: &Path, sizes: &[usize]) -> Vec<PathBuf> {
    let mut i = 0u64;
    let mut paths = Vec::new();
    for (f, &n) in sizes.iter().enumerate() {
        let mut bytes = Vec::with_capacity(n * oracle::RECORD_BYTES);
        for _ in 0..n {
            // Skewed keys: small numbers come back often.
            let key = (i * 2_654_435_761 % 65_521) >> (i % 7);
            bytes.extend_from_slice(&oracle::encode(i as u32, key, 100 + (i % 7) as u32, -1));
            i += 1;
        }
        let path = dir.join(format!("t.{f}.oracleGeneral.bin"));
        std::fs::write(&path, bytes).unwrap();
        paths.push(path);
    }
    paths
}

/// `paths` as one stream, whose length is known (as `run --trace` opens it).
fn chain(paths: &[PathBuf]) -> Box<dyn EventSource> {
    let files = paths
        .iter()
        .map(|p| TraceOptions::new(p, KeyType::U64))
        .collect();
    let bytes: u64 = paths.iter().map(|p| p.metadata().unwrap().len()).sum();
    let events = bytes / oracle::RECORD_BYTES as u64;
    Box::new(FileChain::new(files, None, KeyType::U64, Some(events)))
}

#[test]
fn a_binary_trace_decoded_on_the_workers_replays_as_decoded_on_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let whole = oracle_files(dir.path(), &[23_456]);
    // Files that end within chunks, one of them shorter than a chunk.
    let split = dir.path().join("split");
    std::fs::create_dir(&split).unwrap();
    let parts = oracle_files(&split, &[4_321, 700, 18_435]);
    let one = &whole[0];
    let reference = on_threads(1, &|| {
        Ok(Box::new(DecodedHere(trace::open(&TraceOptions::new(
            one,
            KeyType::U64,
        ))?)))
    });
    assert!(reference.contains("events_measured: 21111"));
    for threads in [1, 2, 3] {
        let file = on_threads(threads, &|| {
            trace::open(&TraceOptions::new(one, KeyType::U64))
        });
        assert!(file == reference, "one file, {threads} threads");
        let files = on_threads(threads, &|| Ok(chain(&parts)));
        assert!(files == reference, "three files, {threads} threads");
    }
}

/// A VSCSI v1 trace of `n` one-block reads, with an invalid SCSI command at each of `bad`.
#[test]
fn one_thread_reads_and_replays_the_trace_on_that_thread_alone() {
    // `--threads 1` uses one core: no reader thread beside the worker.
    let dir = tempfile::tempdir().unwrap();
    let files = oracle_files(dir.path(), &[5_000, 3_000]);
    let readers = Arc::new(Mutex::new(HashSet::new()));
    let open = || -> Result<Box<dyn EventSource>, WorkloadError> {
        Ok(Box::new(Watched {
            inner: chain(&files),
            readers: Arc::clone(&readers),
        }))
    };
    // Replays on `threads` threads; the thread that called the replay.
    let replay_on = |threads: usize| {
        let input = WorkloadInput {
            label: "t".into(),
            description: String::new(),
            key_type: KeyType::U64,
            open: &open,
            watch: None,
        };
        let schemes = SchemeSpec::parse_list("range,hash").unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            replay(&input, &schemes, &cfg(), &|_| {}).unwrap();
            std::thread::current().id()
        })
    };
    let replaying = replay_on(1);
    assert_eq!(*readers.lock().unwrap(), HashSet::from([replaying]));
    // With two workers each one reads its own pieces: the calling thread and one more.
    readers.lock().unwrap().clear();
    let replaying = replay_on(2);
    let seen = readers.lock().unwrap().clone();
    assert!(seen.len() == 2 && seen.contains(&replaying), "{seen:?}");
}

fn vscsi_bytes(n: usize, bad: &[usize]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(n * 32);
    for i in 0..n {
        let mut r = [0u8; 32];
        r[4..8].copy_from_slice(&512u32.to_le_bytes());
        let cmd: u16 = if bad.contains(&i) { 0x12 } else { 0x28 };
        r[12..14].copy_from_slice(&cmd.to_le_bytes());
        r[14..16].copy_from_slice(&0x0100u16.to_le_bytes());
        r[16..24].copy_from_slice(&((i as u64 * 7919) % 1009).to_le_bytes());
        r[24..32].copy_from_slice(&(i as u64).to_le_bytes());
        bytes.extend_from_slice(&r);
    }
    bytes
}

#[test]
fn the_first_malformed_record_is_reported_whichever_worker_decodes_it() {
    let dir = tempfile::tempdir().unwrap();
    // The first bad record is in chunk 2 (warm-up aside), the second in chunk 3: on two
    // threads other workers decode them.
    let path = dir.path().join("t.vscsi");
    std::fs::write(&path, vscsi_bytes(6_000, &[3_456, 4_100, 5_999])).unwrap();
    for threads in [1, 2, 3] {
        let e = on_threads(threads, &|| {
            trace::open(&TraceOptions::new(&path, KeyType::U64))
        });
        assert!(
            e.starts_with("error:") && e.contains(&format!("byte offset {}", 3_456 * 32)),
            "{threads} threads: {e}"
        );
        assert!(e.contains("SCSI command 0x12"), "{e}");
    }
}

#[test]
fn a_truncated_last_record_is_reported_at_its_offset_after_the_whole_ones() {
    let dir = tempfile::tempdir().unwrap();
    let plain = oracle_files(dir.path(), &[5_500]);
    let mut bytes = std::fs::read(&plain[0]).unwrap();
    bytes.truncate(bytes.len() - 10);
    // Compressed: its length is not known before reading it to the end.
    let path = dir.path().join("cut.oracleGeneral.bin.zst");
    std::fs::write(&path, zstd::encode_all(&bytes[..], 1).unwrap()).unwrap();
    for threads in [1, 2, 3] {
        let e = on_threads(threads, &|| {
            trace::open(&TraceOptions::new(&path, KeyType::U64))
        });
        let at = 5_499 * oracle::RECORD_BYTES;
        assert!(
            e.contains(&format!("byte offset {at}")) && e.contains("ends 14 bytes into"),
            "{threads} threads: {e}"
        );
    }
}

/// A csv trace of `n` records with scans, writes, blank lines and `\r\n` line ends; the
/// record on each line of `bad` has an unknown op. Returns the text and each record's line.
fn csv_text(n: usize, bad: &[u64]) -> String {
    let mut text = String::from("timestamp,op,key:u64,end\n");
    let mut line = 2;
    for i in 0..n as u64 {
        if i % 97 == 5 {
            text.push('\n');
            line += 1;
        }
        let key = (i * 2_654_435_761 % 65_521) >> (i % 7);
        let op = match i % 10 {
            _ if bad.contains(&line) => "fetch",
            0 => "scan",
            1 | 2 => "put",
            _ => "get",
        };
        let end = if op == "scan" {
            format!("{}", key + 50)
        } else {
            String::new()
        };
        let eol = if i % 31 == 0 { "\r\n" } else { "\n" };
        text.push_str(&format!("{i},{op},{key},{end}{eol}"));
        line += 1;
    }
    text
}

#[test]
fn csv_lines_decoded_on_the_workers_replay_as_decoded_on_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv_text(20_000, &[])).unwrap();
    // A quote further on: the lines around it are read on the reader's thread.
    let quoted = dir.path().join("q.csv");
    let mut text = csv_text(20_000, &[]);
    let at = text.len() / 2;
    let at = at + text[at..].find('\n').unwrap() + 1;
    text.insert_str(at, "99,get,\"7\",\n");
    std::fs::write(&quoted, text).unwrap();
    for file in [&path, &quoted] {
        let open = || trace::open(&TraceOptions::new(file, KeyType::U64));
        // Without a learned scheme nothing is read ahead: every line after the first
        // record goes through the pieces; with one, the warm-up's events are read ahead.
        for schemes in ["hash,ring", "range,hash"] {
            let reference = through(schemes, 1, &|| Ok(Box::new(DecodedHere(open()?))));
            let scans = if schemes.contains("range") {
                1800
            } else {
                2000
            };
            assert!(
                reference.contains(&format!("scans: {scans},")),
                "{}",
                &reference[..200]
            );
            for threads in [1, 2, 3] {
                let got = through(schemes, threads, &open);
                assert!(got == reference, "{file:?}, {schemes}, {threads} threads");
            }
        }
    }
}

#[test]
fn the_first_malformed_csv_line_is_reported_with_its_line_whichever_worker_decodes_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    // Blocks of up to 1,200 lines: line 3,000 is in the third block, 4,400 in the fourth.
    std::fs::write(&path, csv_text(10_000, &[3_000, 4_400, 9_000])).unwrap();
    for threads in [1, 2, 3] {
        let e = through("hash,ring", threads, &|| {
            trace::open(&TraceOptions::new(&path, KeyType::U64))
        });
        assert!(
            e.starts_with("error:") && e.contains("t.csv:line 3000") && e.contains("'fetch'"),
            "{threads} threads: {e}"
        );
    }
}
