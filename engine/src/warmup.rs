//! The distinct warm-up keys that learned schemes (`range`, `salted`) take their boundaries
//! from, in bounded memory.
//!
//! Boundaries are quantiles of the distinct warm-up keys, and quantiles need only a uniform
//! sample of them. Up to [`WARMUP_KEY_LIMIT`] distinct keys are kept exactly; past it the set
//! becomes a consistent hash sample by the rule of the distinct-key table
//! ([`workloads::stats::KeyTable`]): a key is kept when its sample hash has at least `level`
//! leading zero bits, and the level rises until the set fits again. A trace with 10 million
//! distinct warm-up keys thus learns from 0.5 to 1 million of them, whose quantiles lie within
//! about 0.1% (by rank) of the exact ones, in some 60 MiB instead of over a gigabyte.

use std::collections::VecDeque;

use workloads::stats::KeyTable;
use workloads::{EventChunk, EventSource, Piece, WorkloadError};

/// The most distinct warm-up keys kept exactly (2^20).
pub const WARMUP_KEY_LIMIT: usize = 1 << 20;

/// Collects the distinct warm-up keys (exactly up to a limit, then a consistent sample): the
/// keys of a [`KeyTable`], whose counts are not needed here.
///
/// ```
/// use engine::warmup::WarmupKeys;
/// let mut w = WarmupKeys::new();
/// w.add_each([&b"b"[..], b"a", b"b"]);
/// assert_eq!(w.into_sorted(), [b"a".to_vec(), b"b".to_vec()]);
/// ```
#[derive(Clone, Debug)]
pub struct WarmupKeys {
    table: KeyTable,
}

impl Default for WarmupKeys {
    fn default() -> Self {
        Self::with_limit(WARMUP_KEY_LIMIT)
    }
}

impl WarmupKeys {
    /// An empty set, exact up to [`WARMUP_KEY_LIMIT`] keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set, exact up to `limit` keys (at least 1).
    pub fn with_limit(limit: usize) -> Self {
        WarmupKeys {
            table: KeyTable::with_limit(limit),
        }
    }

    /// Adds warm-up keys (point keys and scan starts).
    pub fn add_each<'k>(&mut self, keys: impl IntoIterator<Item = &'k [u8]>) {
        self.table.add_each(keys);
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Share of the distinct keys held: 1 while exact, 2^-level once sampling.
    pub fn sample_rate(&self) -> f64 {
        self.table.sample_rate()
    }

    /// The keys held, sorted in byte order.
    pub fn into_sorted(self) -> Vec<Vec<u8>> {
        // 8-byte keys (every key of u64 and binary traces) sort as numbers, the others as
        // bytes; the two lists are then merged.
        let mut numbers: Vec<u64> = Vec::with_capacity(self.table.len());
        let mut others: Vec<&[u8]> = Vec::new();
        for (key, _) in self.table.iter() {
            match key.first_chunk::<8>() {
                Some(head) if key.len() == 8 => numbers.push(u64::from_be_bytes(*head)),
                _ => others.push(key),
            }
        }
        numbers.sort_unstable();
        others.sort_unstable();
        let mut sorted = Vec::with_capacity(numbers.len() + others.len());
        let mut others = others.into_iter().peekable();
        for number in numbers {
            let bytes = number.to_be_bytes();
            while let Some(other) = others.next_if(|o| *o < bytes.as_slice()) {
                sorted.push(other.to_vec());
            }
            sorted.push(bytes.to_vec());
        }
        sorted.extend(others.map(<[u8]>::to_vec));
        sorted
    }
}

/// The events over which the warm-up share is taken: the whole stream when it has at most
/// this many events, its first this many otherwise (see [`size_warmup`]).
pub const WARMUP_HORIZON_EVENTS: u64 = 1_000_000;

/// Key bytes held at most while the horizon is read; a stream of huge keys ends its horizon
/// sooner, at the event that passes this.
pub const WARMUP_HORIZON_BYTES: usize = 256 << 20;

/// The rule of [`size_warmup`] in one sentence, for manifests.
pub fn warmup_rule(fraction: f64) -> String {
    format!(
        "floor({fraction} x H) events, H = the stream's length up to {WARMUP_HORIZON_EVENTS} \
         events, else {WARMUP_HORIZON_EVENTS} (or the events read ahead within \
         {WARMUP_HORIZON_BYTES} bytes of keys), when a scheme learns boundaries; 0 otherwise"
    )
}

/// Sizes the warm-up of a stream that is read once, and returns it with the stream replayed
/// from its start.
///
/// The warm-up is `floor(fraction x H)` events, where H is the stream's length when it has at
/// most [`WARMUP_HORIZON_EVENTS`] events and that many otherwise. A stream that knows its
/// length is not buffered; any other is read ahead up to the horizon (bounded memory: at most
/// [`WARMUP_HORIZON_EVENTS`] events or [`WARMUP_HORIZON_BYTES`] of keys, whichever comes
/// first) to learn whether it ends there. Results are thus those of a warm-up of
/// `fraction x length` for every stream of up to a million events, and no input is read twice.
pub fn size_warmup(
    mut source: Box<dyn EventSource>,
    fraction: f64,
) -> Result<(u64, Box<dyn EventSource>), WorkloadError> {
    let share = |events: u64| (events as f64 * fraction).floor() as u64;
    if fraction <= 0.0 {
        return Ok((0, source));
    }
    if let Some(n) = source.len_hint() {
        return Ok((share(n.min(WARMUP_HORIZON_EVENTS)), source));
    }
    let mut buffered = VecDeque::new();
    let (mut events, mut bytes) = (0u64, 0usize);
    while events < WARMUP_HORIZON_EVENTS && bytes < WARMUP_HORIZON_BYTES {
        let mut chunk = EventChunk::with_capacity(1 << 16);
        let max = (WARMUP_HORIZON_EVENTS - events).min(1 << 16) as usize;
        if source.fill(&mut chunk, max)? == 0 {
            break;
        }
        events += chunk.len() as u64;
        bytes += chunk
            .iter()
            .map(|ev| ev.key.len() + ev.end.map_or(0, <[u8]>::len))
            .sum::<usize>();
        buffered.push_back(chunk);
    }
    let replayed = Replayed {
        buffered,
        next: 0,
        rest: source,
    };
    Ok((share(events), Box::new(replayed)))
}

/// Events read ahead, handed out again before the rest of their stream.
struct Replayed {
    buffered: VecDeque<EventChunk>,
    /// The next event of the first buffered chunk.
    next: usize,
    rest: Box<dyn EventSource>,
}

impl EventSource for Replayed {
    /// The rest's pieces once the events read ahead are handed out.
    fn fill_piece(&mut self, piece: &mut Piece, max: usize) -> Result<usize, WorkloadError> {
        if self.buffered.is_empty() {
            return self.rest.fill_piece(piece, max);
        }
        piece.push_decoded(|chunk| self.fill(chunk, max))
    }

    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let Some(front) = self.buffered.front() else {
            return self.rest.fill(chunk, max);
        };
        let n = max.min(front.len() - self.next);
        for i in self.next..self.next + n {
            chunk.push(front.get(i));
        }
        self.next += n;
        if self.next == front.len() {
            self.buffered.pop_front();
            self.next = 0;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::stats::sample_hash;

    /// Events with keys 0, 1, ... of a stream that does not say its length.
    struct Counting(u64, u64);

    impl EventSource for Counting {
        fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
            let n = (max as u64).min(self.1 - self.0).min(1000);
            for k in self.0..self.0 + n {
                chunk.push(workloads::Event {
                    op: workloads::Op::Get,
                    key: &k.to_be_bytes(),
                    end: None,
                    timestamp: Some(k),
                    size: None,
                });
            }
            self.0 += n;
            Ok(n as usize)
        }
    }

    /// The warm-up size and every key of the replayed stream, in order.
    fn sized(events: u64, fraction: f64) -> (u64, Vec<u64>) {
        let (warmup, mut source) = size_warmup(Box::new(Counting(0, events)), fraction).unwrap();
        let all = workloads::collect(source.as_mut()).unwrap();
        let keys = all
            .iter()
            .map(|ev| u64::from_be_bytes(ev.key.try_into().unwrap()))
            .collect();
        (warmup, keys)
    }

    #[test]
    fn the_warm_up_is_a_share_of_the_stream_up_to_the_horizon_and_nothing_is_lost() {
        let h = WARMUP_HORIZON_EVENTS;
        for (events, fraction, want) in [
            (0, 0.1, 0),
            (9, 0.1, 0),
            (12_345, 0.1, 1_234),
            (h, 0.1, h / 10),
            (h + 1, 0.1, h / 10),
            (h + 70_000, 0.5, h / 2),
            (5_000, 0.0, 0),
        ] {
            let (warmup, keys) = sized(events, fraction);
            assert_eq!(warmup, want, "{events} events at {fraction}");
            assert!(
                keys.iter().copied().eq(0..events),
                "{events} events replayed in order"
            );
        }
    }

    #[test]
    fn keys_of_mixed_lengths_come_out_distinct_and_in_byte_order() {
        let keys: [&[u8]; 12] = [
            b"\x00\x00\x00\x00\x00\x00\x00\x07",
            b"",
            b"a",
            b"\x00",
            b"\x00\x00\x00\x00\x00\x00\x00\x07",
            b"\x00\x00\x00\x00\x00\x00\x00\x07\x00",
            b"\xff\xff\xff\xff\xff\xff\xff\xff",
            b"abcdefgh",
            b"abcdefg",
            b"abcdefghi",
            b"a",
            b"\x00\x00\x00\x00\x00\x00\x00\x06",
        ];
        let mut want: Vec<Vec<u8>> = keys.iter().map(|k| k.to_vec()).collect();
        want.sort();
        want.dedup();
        let mut w = WarmupKeys::new();
        w.add_each(keys);
        assert_eq!(w.sample_rate(), 1.0);
        assert_eq!(w.into_sorted(), want);
    }

    #[test]
    fn past_the_limit_the_keys_are_a_consistent_sample_of_even_quantiles() {
        let mut w = WarmupKeys::with_limit(1000);
        // Mixed widths: u64 keys and 9-byte keys, each seen twice.
        for _ in 0..2 {
            for i in 0..20_000u64 {
                let key = i.to_be_bytes();
                if i % 2 == 0 {
                    w.add_each([&key[..]]);
                } else {
                    w.add_each([&[&key[..], &[0]].concat()[..]]);
                }
            }
        }
        let rate = w.sample_rate();
        assert!(rate < 1.0 && w.len() <= 1000, "{rate} {}", w.len());
        let level = rate.log2().round().abs() as u32;
        let sorted = w.into_sorted();
        // Exactly the keys whose hash passes the level: a sample, not the first keys seen.
        let want = (0..20_000u64)
            .map(|i| match i % 2 {
                0 => i.to_be_bytes().to_vec(),
                _ => [&i.to_be_bytes()[..], &[0]].concat(),
            })
            .filter(|k| sample_hash(k).leading_zeros() >= level)
            .count();
        assert_eq!(sorted.len(), want);
        assert!(sorted.windows(2).all(|p| p[0] < p[1]));
        // The median of the sample is near the median key (10,000).
        let mid = &sorted[sorted.len() / 2][..8];
        let median = u64::from_be_bytes(mid.try_into().unwrap());
        assert!((8_000..12_000).contains(&median), "{median}");
    }
}
