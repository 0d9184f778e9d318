//! The measured traffic of one workload, in memory, by rate window: per window and key the
//! point reads and writes, the scans, and each key's stored bytes. A plan evaluates many
//! layouts on it, so it is read from the workload once.

use std::collections::HashMap;
use std::ops::Range;

use workloads::{EventChunk, EventSource, Op};
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use super::clock::{Clock, Windows};
use engine::warmup::WarmupKeys;
use schemes::range_write::range_write_replicas;
use schemes::{AnalysisError, KeyCounts, Partitioner, ShardSet};

/// The point requests of one key in one window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Window number, counted from the first measured window.
    pub window: u32,
    /// Key number (an index into [`Traffic::keys`]).
    pub key: u32,
    /// Gets.
    pub reads: u64,
    /// Puts and deletes.
    pub writes: u64,
}

/// One scan, or one range write, of `[start, end)` in its window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanEntry {
    /// Window number, counted from the first measured window.
    pub window: u32,
    /// A put or delete of every key in the range (written on every replica), not a scan.
    pub write: bool,
    /// Inclusive start key.
    pub start: Box<[u8]>,
    /// Exclusive end key.
    pub end: Box<[u8]>,
}

impl ScanEntry {
    /// Adds to `out` the shards it contacts under `part` with `rf` replicas: a scan's
    /// ([`Partitioner::scan_shards`]), or every replica of a key a range write writes
    /// ([`range_write_replicas`]).
    pub fn shards(&self, part: &dyn Partitioner, rf: u32, out: &mut ShardSet) {
        if self.write {
            range_write_replicas(part, &self.start, &self.end, rf, out);
        } else {
            part.scan_shards(&self.start, &self.end, out);
        }
    }
}

/// The entries and scans of one window that has traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowGroup {
    /// Window number.
    pub window: u32,
    /// Its entries in [`Traffic::entries`].
    pub entries: Range<usize>,
    /// Its scans in [`Traffic::scans`].
    pub scans: Range<usize>,
}

/// The measured traffic of a workload by window.
#[derive(Clone, Debug)]
pub struct Traffic {
    keys: Vec<Box<[u8]>>,
    key_bytes: Vec<u64>,
    counts: KeyCounts,
    entries: Vec<Entry>,
    scans: Vec<ScanEntry>,
    groups: Vec<WindowGroup>,
    /// Every entry with its group number, sorted by key, then window (a copy, so that the
    /// entries of a set of keys are read in sequence).
    by_key: Vec<(u32, Entry)>,
    /// Where each key's part of `by_key` starts; one more than there are keys.
    key_starts: Vec<u32>,
    windows: u64,
    window_secs: f64,
    span_secs: f64,
    warmup_keys: Vec<Vec<u8>>,
    warmup_events: u64,
    events: u64,
}

/// A scan or range write before windows are numbered: (absolute window, start, end, write).
type RawScan = (u64, Box<[u8]>, Box<[u8]>, bool);

/// What [`Traffic::read`] collects before the windows are numbered from the first one.
#[derive(Default)]
struct Collector {
    /// Key numbers of 8-byte keys (the common integer keys), without reading a key's bytes
    /// behind a pointer to compare it.
    ids8: HashMap<u64, u32, Xxh3DefaultBuilder>,
    /// Key numbers of the other keys.
    ids: HashMap<Box<[u8]>, u32, Xxh3DefaultBuilder>,
    keys: Vec<Box<[u8]>>,
    key_bytes: Vec<u64>,
    counts: KeyCounts,
    /// (absolute window, key) -> (reads, writes).
    cells: HashMap<(u64, u32), (u64, u64), Xxh3DefaultBuilder>,
    /// (absolute window, start, end) of every scan.
    scans: Vec<RawScan>,
    warmup_keys: WarmupKeys,
    events: u64,
    /// The smallest and largest timestamp of the measured events that have one.
    ticks: Option<(u64, u64)>,
}

impl Traffic {
    /// Reads and measures every event of `source`. The first `warmup_events` events also
    /// give their distinct keys (point keys and scan starts) to [`Traffic::warmup_keys`], for
    /// schemes that learn boundaries; they are measured too, so the rates a plan sizes for
    /// are the whole trace's whichever schemes are listed beside each other (a range
    /// layout is then scored partly on the events it learned from). `progress` is called
    /// with event counts.
    pub fn read(
        source: &mut dyn EventSource,
        windows: &Windows,
        warmup_events: u64,
        progress: &dyn Fn(u64),
    ) -> Result<Traffic, AnalysisError> {
        let mut c = Collector::default();
        let mut chunk = EventChunk::with_capacity(1 << 16);
        let mut index = 0u64;
        loop {
            chunk.clear();
            let n = source.fill(&mut chunk, 1 << 16)?;
            if n == 0 {
                break;
            }
            // The chunk's warm-up events teach their keys; every event is measured.
            let warm = warmup_events.saturating_sub(index).min(n as u64) as usize;
            c.warmup_keys
                .add_each(chunk.iter().take(warm).map(|ev| ev.key));
            for (i, ev) in chunk.iter().enumerate() {
                c.record(windows.window_of(index + i as u64, ev.timestamp)?, ev);
            }
            index += n as u64;
            progress(n as u64);
        }
        let span_secs = match windows.clock() {
            Clock::Timestamps { nanos_per_tick } => c.ticks.map_or(0.0, |(first, last)| {
                (last - first) as f64 * nanos_per_tick as f64 / 1e9
            }),
            Clock::Rate { events_per_sec } => c.events as f64 / events_per_sec as f64,
        };
        c.finish(windows.seconds(), span_secs, warmup_events.min(index))
    }

    /// The distinct point keys; [`Entry::key`] indexes this.
    pub fn keys(&self) -> &[Box<[u8]>] {
        &self.keys
    }

    /// Stored bytes of every key: the largest `size` seen on its point events (0 when none).
    pub fn key_bytes(&self) -> &[u64] {
        &self.key_bytes
    }

    /// Point requests per distinct key over the measured events, for the schemes' resize and
    /// removal rules and for remap shares (exact up to the key table's distinct-key limit, a
    /// consistent sample of the key space beyond it, as in `run`).
    pub fn counts(&self) -> &KeyCounts {
        &self.counts
    }

    /// Point requests by window and key, sorted by window then key.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Scans in window order (stream order within a window).
    pub fn scans(&self) -> &[ScanEntry] {
        &self.scans
    }

    /// The windows that have traffic, in order.
    pub fn groups(&self) -> &[WindowGroup] {
        &self.groups
    }

    /// The entries of key number `key` with their group numbers in [`Traffic::groups`], in
    /// window order.
    pub fn entries_of(&self, key: u32) -> &[(u32, Entry)] {
        &self.by_key
            [self.key_starts[key as usize] as usize..self.key_starts[key as usize + 1] as usize]
    }

    /// Windows from the first measured one to the last, empty ones included.
    pub fn windows(&self) -> u64 {
        self.windows
    }

    /// The window length in seconds.
    pub fn window_secs(&self) -> f64 {
        self.window_secs
    }

    /// Seconds from the first measured event to the last: by their timestamps (0 when none
    /// has one), or events / rate with `--rate`.
    pub fn span_secs(&self) -> f64 {
        self.span_secs
    }

    /// The sorted distinct keys of the warm-up prefix (a consistent sample past
    /// [`engine::warmup::WARMUP_KEY_LIMIT`]).
    pub fn warmup_keys(&self) -> &[Vec<u8>] {
        &self.warmup_keys
    }

    /// Events read only as warm-up.
    pub fn warmup_events(&self) -> u64 {
        self.warmup_events
    }

    /// Events measured (points, scans and range writes).
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Events (points and scans) in every window that has traffic, in window order (the
    /// others have none; there may be billions of them, so they are not listed).
    pub fn events_per_window(&self) -> Vec<u64> {
        self.groups
            .iter()
            .map(|g| {
                let points: u64 = self.entries[g.entries.clone()]
                    .iter()
                    .map(|e| e.reads + e.writes)
                    .sum();
                points + g.scans.len() as u64
            })
            .collect()
    }

    /// The most requests all shards together serve in one window with `replicas` copies of
    /// every key: reads once, writes on every replica, scans at least once, range writes at
    /// least on every replica.
    pub fn max_window_requests(&self, replicas: u32) -> u64 {
        self.groups
            .iter()
            .map(|g| {
                let (reads, writes) = self.entries[g.entries.clone()]
                    .iter()
                    .fold((0u64, 0u64), |(r, w), e| (r + e.reads, w + e.writes));
                let ranges = self.scans[g.scans.clone()].iter();
                let ranged: u64 = ranges
                    .map(|s| if s.write { u64::from(replicas) } else { 1 })
                    .sum();
                reads + writes * u64::from(replicas) + ranged
            })
            .max()
            .unwrap_or(0)
    }

    /// The most scans that start in one window (range writes left out).
    pub fn max_window_scans(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| {
                self.scans[g.scans.clone()]
                    .iter()
                    .filter(|s| !s.write)
                    .count() as u64
            })
            .max()
            .unwrap_or(0)
    }

    /// The stored bytes of all keys (one copy).
    pub fn total_bytes(&self) -> u64 {
        self.key_bytes.iter().sum()
    }
}

impl Collector {
    /// Counts one measured event in absolute window `window`.
    fn record(&mut self, window: u64, ev: workloads::Event<'_>) {
        self.events += 1;
        if let Some(t) = ev.timestamp {
            let (first, last) = self.ticks.get_or_insert((t, t));
            (*first, *last) = ((*first).min(t), (*last).max(t));
        }
        if !ev.is_point() {
            let end = ev.end.unwrap_or(ev.key).into();
            self.scans
                .push((window, ev.key.into(), end, ev.is_range_write()));
            return;
        }
        let next = self.keys.len() as u32;
        let id = match ev.key.first_chunk::<8>().filter(|_| ev.key.len() == 8) {
            Some(&eight) => *self.ids8.entry(u64::from_ne_bytes(eight)).or_insert(next),
            None => match self.ids.get(ev.key) {
                Some(&id) => id,
                None => *self.ids.entry(ev.key.into()).or_insert(next),
            },
        };
        if id == next {
            self.keys.push(ev.key.into());
            self.key_bytes.push(0);
        }
        let bytes = &mut self.key_bytes[id as usize];
        *bytes = (*bytes).max(u64::from(ev.size.unwrap_or(0)));
        self.counts.add(ev.key, 1);
        let cell = self.cells.entry((window, id)).or_insert((0, 0));
        if ev.op == Op::Get {
            cell.0 += 1;
        } else {
            cell.1 += 1;
        }
    }

    /// Numbers the windows from the first measured one and sorts everything by window.
    fn finish(
        self,
        window_secs: f64,
        span_secs: f64,
        warmup_events: u64,
    ) -> Result<Traffic, AnalysisError> {
        if self.events == 0 {
            return Err(AnalysisError::Config(format!(
                "the workload has no events to plan for (a warm-up of {warmup_events} events)"
            )));
        }
        if self.keys.len() > u32::MAX as usize {
            return Err(AnalysisError::Config(
                "more than 4,294,967,295 distinct keys cannot be planned".into(),
            ));
        }
        let windows = self
            .cells
            .keys()
            .map(|c| c.0)
            .chain(self.scans.iter().map(|s| s.0));
        let (first, last) = windows.fold((u64::MAX, 0), |(lo, hi), w| (lo.min(w), hi.max(w)));
        // Window numbers are 32-bit; empty windows cost nothing, so only the count is bounded.
        let span = (last - first)
            .checked_add(1)
            .filter(|&s| s <= u64::from(u32::MAX));
        let Some(span) = span else {
            return Err(AnalysisError::Config(format!(
                "the trace spans {} rate windows (windows {first} to {last} from time 0), more than \
                 the 4,294,967,295 a plan can number; choose a longer --rate-window (or check the \
                 time unit, --time-unit)",
                u128::from(last - first) + 1
            )));
        };
        let mut entries: Vec<Entry> = self
            .cells
            .into_iter()
            .map(|((w, key), (reads, writes))| Entry {
                window: (w - first) as u32,
                key,
                reads,
                writes,
            })
            .collect();
        entries.sort_unstable_by_key(|e| (e.window, e.key));
        let mut scans: Vec<ScanEntry> = self
            .scans
            .into_iter()
            .map(|(w, start, end, write)| ScanEntry {
                window: (w - first) as u32,
                write,
                start,
                end,
            })
            .collect();
        scans.sort_by_key(|s| s.window);
        let groups = group_by_window(&entries, &scans);
        if entries.len() > u32::MAX as usize {
            return Err(AnalysisError::Config(
                "more than 4,294,967,295 (window, key) pairs cannot be planned".into(),
            ));
        }
        let (by_key, key_starts) = index_by_key(&entries, &groups, self.keys.len());
        let warmup_keys = self.warmup_keys.into_sorted();
        Ok(Traffic {
            keys: self.keys,
            key_bytes: self.key_bytes,
            counts: self.counts,
            entries,
            scans,
            groups,
            by_key,
            key_starts,
            windows: span,
            window_secs,
            span_secs,
            warmup_keys,
            warmup_events,
            events: self.events,
        })
    }
}

/// Every entry with its group, grouped by key (counting sort), and where each key's run
/// starts.
fn index_by_key(
    entries: &[Entry],
    groups: &[WindowGroup],
    keys: usize,
) -> (Vec<(u32, Entry)>, Vec<u32>) {
    let mut starts = vec![0u32; keys + 1];
    for e in entries {
        starts[e.key as usize + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let mut next = starts.clone();
    let empty = Entry {
        window: 0,
        key: 0,
        reads: 0,
        writes: 0,
    };
    let mut by_key = vec![(0u32, empty); entries.len()];
    for (g, group) in groups.iter().enumerate() {
        for e in &entries[group.entries.clone()] {
            let slot = &mut next[e.key as usize];
            by_key[*slot as usize] = (g as u32, *e);
            *slot += 1;
        }
    }
    (by_key, starts)
}

/// The windows with traffic and where their entries and scans are (both sorted by window).
fn group_by_window(entries: &[Entry], scans: &[ScanEntry]) -> Vec<WindowGroup> {
    let (mut i, mut j) = (0, 0);
    let mut groups = Vec::new();
    while i < entries.len() || j < scans.len() {
        let window = match (entries.get(i), scans.get(j)) {
            (Some(e), Some(s)) => e.window.min(s.window),
            (Some(e), None) => e.window,
            (None, Some(s)) => s.window,
            (None, None) => break,
        };
        let (ei, sj) = (i, j);
        while entries.get(i).is_some_and(|e| e.window == window) {
            i += 1;
        }
        while scans.get(j).is_some_and(|s| s.window == window) {
            j += 1;
        }
        groups.push(WindowGroup {
            window,
            entries: ei..i,
            scans: sj..j,
        });
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use workloads::Event;

    /// A source over fixed events.
    struct Fixed(Vec<FixedEvent>, usize);

    /// (op, key, timestamp, size).
    type FixedEvent = (Op, &'static [u8], Option<u64>, Option<u32>);

    impl EventSource for Fixed {
        fn fill(
            &mut self,
            chunk: &mut EventChunk,
            max: usize,
        ) -> Result<usize, workloads::WorkloadError> {
            let n = max.min(self.0.len() - self.1);
            for &(op, key, timestamp, size) in &self.0[self.1..self.1 + n] {
                let end = (op == Op::Scan).then_some(b"zz".as_slice());
                chunk.push(Event {
                    op,
                    key,
                    end,
                    timestamp,
                    size,
                });
            }
            self.1 += n;
            Ok(n)
        }
    }

    #[test]
    fn events_are_counted_by_window_key_and_kind_the_warm_up_too() {
        let mut source = Fixed(
            vec![
                (Op::Get, b"a", Some(2_050_000), None), // warm-up, measured as well
                (Op::Get, b"a", Some(2_100_000), Some(10)), // window 2 -> first window
                (Op::Put, b"a", Some(2_900_000), Some(30)),
                (Op::Get, b"b", Some(2_000_000), None),
                (Op::Scan, b"c", Some(4_000_000), None), // window 4
                (Op::Delete, b"a", Some(4_500_000), Some(20)),
            ],
            0,
        );
        let windows = Windows::new(
            Clock::Timestamps {
                nanos_per_tick: 1_000,
            },
            1_000_000_000,
        )
        .unwrap();
        let t = Traffic::read(&mut source, &windows, 1, &|_| {}).unwrap();
        assert_eq!(t.warmup_keys(), [b"a".to_vec()]);
        assert_eq!((t.events(), t.warmup_events(), t.windows()), (6, 1, 3));
        assert_eq!(
            t.keys(),
            [
                b"a".to_vec().into_boxed_slice(),
                b"b".to_vec().into_boxed_slice()
            ]
        );
        assert_eq!(t.key_bytes(), [30, 0]);
        let e = |window, key, reads, writes| Entry {
            window,
            key,
            reads,
            writes,
        };
        assert_eq!(t.entries(), [e(0, 0, 2, 1), e(0, 1, 1, 0), e(2, 0, 0, 1)]);
        assert_eq!(t.scans().len(), 1);
        assert_eq!(
            t.groups()
                .iter()
                .map(|g| (g.window, g.entries.clone(), g.scans.clone()))
                .collect::<Vec<_>>(),
            [(0, 0..2, 0..0), (2, 2..3, 0..1)]
        );
        assert_eq!(t.events_per_window(), [4, 2]);
        assert_eq!(t.max_window_requests(3), 3 + 3); // window 0: 3 reads + 1 write on 3 replicas
        assert_eq!(t.counts().count(b"a"), 4);
        assert_eq!(
            (t.entries_of(0), t.entries_of(1)),
            (
                [(0, e(0, 0, 2, 1)), (1, e(2, 0, 0, 1))].as_slice(),
                [(0, e(0, 1, 1, 0))].as_slice()
            )
        );
    }

    #[test]
    fn keys_are_numbered_in_order_of_first_appearance_whatever_their_length() {
        let keys: [&'static [u8]; 7] = [
            b"abcdefgh",
            b"k1",
            b"abcdefgh",
            b"12345678",
            b"k1",
            b"abcdefghi",
            b"12345678",
        ];
        let events = keys.iter().map(|&k| (Op::Get, k, None, None)).collect();
        let windows = Windows::new(Clock::Rate { events_per_sec: 10 }, 1_000_000_000).unwrap();
        let t = Traffic::read(&mut Fixed(events, 0), &windows, 0, &|_| {}).unwrap();
        let want: [&[u8]; 4] = [b"abcdefgh", b"k1", b"12345678", b"abcdefghi"];
        assert_eq!(t.keys().iter().map(|k| &k[..]).collect::<Vec<_>>(), want);
        let requests: Vec<u64> = (0..4).map(|k| t.entries_of(k)[0].1.reads).collect();
        assert_eq!(requests, [2, 2, 2, 1]);
    }

    #[test]
    fn a_workload_without_events_is_refused() {
        let mut source = Fixed(Vec::new(), 0);
        let windows = Windows::new(Clock::Rate { events_per_sec: 10 }, 1_000_000_000).unwrap();
        let err = Traffic::read(&mut source, &windows, 0, &|_| {}).unwrap_err();
        assert!(err.to_string().contains("no events to plan for"), "{err}");
    }

    /// (key, op, end): integer keys, no timestamps.
    struct Ranged(Vec<(u64, Op, Option<u64>)>, bool);

    impl EventSource for Ranged {
        fn fill(
            &mut self,
            chunk: &mut EventChunk,
            _max: usize,
        ) -> Result<usize, workloads::WorkloadError> {
            if std::mem::replace(&mut self.1, true) {
                return Ok(0);
            }
            for &(key, op, end) in &self.0 {
                let (key, end) = (key.to_be_bytes(), end.map(u64::to_be_bytes));
                chunk.push(Event {
                    op,
                    key: &key,
                    end: end.as_ref().map(|e| &e[..]),
                    timestamp: None,
                    size: None,
                });
            }
            Ok(self.0.len())
        }
    }

    #[test]
    fn a_range_write_is_one_request_to_every_replica_of_its_keys() {
        use crate::point_loads::PointLoads;
        use crate::window_load::{evaluate, ReadPolicy, ReplicaPolicy, ReplicaTable};
        let mut source = Ranged(
            vec![
                (1, Op::Get, None),
                (10, Op::Put, Some(13)), // writes 10, 11 and 12
                (20, Op::Scan, Some(22)),
            ],
            false,
        );
        let windows = Windows::new(Clock::Rate { events_per_sec: 10 }, 1_000_000_000).unwrap();
        let t = Traffic::read(&mut source, &windows, 0, &|_| {}).unwrap();
        assert_eq!(t.scans().len(), 2);
        assert_eq!(t.max_window_scans(), 1, "the range write is not a scan");
        assert_eq!(t.max_window_requests(3), 1 + 3 + 1);
        let part = schemes::hash::ModHashPartitioner::new("hash", 16).unwrap();
        let policy = ReplicaPolicy {
            replicas: 3,
            reads: ReadPolicy::Leader,
        };
        let mut want = vec![0.0; 16];
        let mut replicas = Vec::new();
        part.replicas(&1u64.to_be_bytes(), 1, &mut replicas);
        want[replicas[0] as usize] += 1.0;
        let mut written = std::collections::BTreeSet::new();
        for key in 10u64..13 {
            replicas.clear();
            part.replicas(&key.to_be_bytes(), 3, &mut replicas);
            written.extend(replicas.iter().copied());
        }
        assert!(written.len() > 3, "three keys' replicas: {written:?}");
        written.iter().for_each(|&s| want[s as usize] += 1.0);
        want.iter_mut().for_each(|w| *w += 1.0); // the scan asks every shard
        let load = evaluate(&part, &t, policy).unwrap();
        assert_eq!(load.shard_requests(), want);
        let table = ReplicaTable::new(&part, &t, 3).unwrap();
        let points = PointLoads::new(&table, &t, policy.reads, 16).unwrap();
        assert_eq!(
            points.load(&part, &[], &t, 3),
            load,
            "both ways of counting agree"
        );
    }
}
