//! Reading a numeric csv trace, in MB/s of text: `cargo bench -p workloads --bench csv_read`.
//!
//! One timed iteration reads [`EVENTS`] events of the `timestamp,op,key,end` trace of
//! issue 19 (13-digit timestamps, gets of u64 keys spread over the whole range, about 39
//! bytes a line) from a file in the page cache into event chunks, as `run` does. Two readers
//! in one group, so their ratio comes from one run:
//! - `memchr_split`: the plain splitter (`workloads/src/trace/plain_records.rs`);
//! - `csv_crate`: the csv crate's reader, which the reader keeps for traces whose first
//!   bytes hold a quote: the same file with the header written `"timestamp",op,key,end`.

// criterion_group! and criterion_main! generate undocumented functions.
#![allow(missing_docs)]

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use workloads::trace::{self, TraceFormat, TraceOptions};
use workloads::{EventChunk, KeyType};

/// Events per timed iteration.
const EVENTS: u64 = 1_000_000;

/// SplitMix64: spreads key ids over every u64 (keys of 1 to 20 digits, mostly 19-20).
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Writes the trace with `header` to a temporary file.
fn trace_file(header: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
    let mut out = std::io::BufWriter::new(file.as_file_mut());
    writeln!(out, "{header}").expect("write");
    for i in 0..EVENTS {
        let key = splitmix(splitmix(i) % 1_000_000);
        writeln!(out, "{},get,{key},", 1_600_000_000_000 + i).expect("write");
    }
    out.flush().expect("flush");
    drop(out);
    file
}

/// Reads every event of `path`; the number read.
fn read_all(path: &Path) -> u64 {
    let opts = TraceOptions {
        format: Some(TraceFormat::Csv),
        ..TraceOptions::new(path, KeyType::U64)
    };
    let mut source = trace::open(&opts).expect("a readable trace");
    let mut chunk = EventChunk::with_capacity(1 << 16);
    let mut events = 0;
    loop {
        chunk.clear();
        match source.fill(&mut chunk, 1 << 16).expect("valid events") {
            0 => return events,
            n => events += n as u64,
        }
    }
}

fn csv_read(c: &mut Criterion) {
    let plain = trace_file("timestamp,op,key,end");
    let quoted = trace_file("\"timestamp\",op,key,end");
    let bytes = std::fs::metadata(plain.path()).expect("metadata").len();
    let mut group = c.benchmark_group("csv_read");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Bytes(bytes));
    for (name, file) in [("memchr_split", &plain), ("csv_crate", &quoted)] {
        group.bench_function(name, |b| {
            b.iter(|| assert_eq!(read_all(file.path()), EVENTS));
        });
    }
    group.finish();
}

criterion_group!(benches, csv_read);
criterion_main!(benches);
