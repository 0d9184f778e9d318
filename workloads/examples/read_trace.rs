//! Reads a trace once and prints its format, events, op mix and read speed: the measurement
//! behind the "Trace reading" section of BENCHMARKS.md.
//!
//! ```sh
//! cargo run --release -p workloads --example read_trace -- TRACE [FORMAT] [KEY_TYPE]
//! ```

use std::time::Instant;

use workloads::trace::{self, TraceOptions};
use workloads::{EventChunk, KeyType, Op};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: read_trace TRACE [FORMAT] [bytes|u64]");
        std::process::exit(2);
    };
    let mut opts = TraceOptions::new(&path, KeyType::Bytes);
    if let Some(format) = args.next().filter(|f| f != "-") {
        opts.format = Some(format.parse().unwrap_or_else(|e: String| fail(e)));
    }
    if let Some(kt) = args.next() {
        opts.key_type =
            KeyType::from_name(&kt).unwrap_or_else(|| fail(format!("bad key type {kt}")));
    }
    let started = Instant::now();
    let mut opened = trace::open_detected(&opts).unwrap_or_else(|e| fail(e.to_string()));
    let mut chunk = EventChunk::with_capacity(1 << 16);
    let (mut events, mut ops, mut key_bytes) = (0u64, [0u64; 4], 0u64);
    loop {
        chunk.clear();
        let n = opened
            .source
            .fill(&mut chunk, 1 << 16)
            .unwrap_or_else(|e| fail(e.to_string()));
        if n == 0 {
            break;
        }
        events += n as u64;
        for e in chunk.iter() {
            ops[Op::ALL.iter().position(|o| *o == e.op).unwrap_or(0)] += 1;
            key_bytes += e.key.len() as u64;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let file_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "{path}: {} ({} compression), {events} events (get {}, put {}, delete {}, scan {}), {key_bytes} key bytes",
        opened.format,
        opened.compression.name(),
        ops[0],
        ops[1],
        ops[2],
        ops[3]
    );
    println!(
        "{secs:.3} s, {:.1} M events/s, {:.1} MB/s of file",
        events as f64 / secs / 1e6,
        file_bytes as f64 / secs / 1e6
    );
}

fn fail(message: String) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}
