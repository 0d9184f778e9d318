//! Search layouts behind the key-range and ring lookups.
//!
//! - [`RadixIndex`]: "how many sorted `u64` keys are `<= x`" in about two memory accesses,
//!   through a bucket table on the key bits; exact for any keys.
//! - [`KeyIndex`]: the same question for byte-string split keys, through their 8-byte
//!   prefixes, with a full comparison only where prefixes tie.
//! - [`SegmentedIndex`]: the `u64` question per segment (per salt bucket) in one table.
//!
//! Every layout answers exactly as `partition_point` over the plain sorted list does (unit
//! tests here, property tests in `tests/layouts.rs`); `benches/lookup.rs` measures them
//! against `partition_point` and `BTreeMap`.

mod key_index;
mod radix;
mod segmented;

pub use key_index::{prefix8, KeyIndex};
pub use radix::RadixIndex;
pub use segmented::SegmentedIndex;

/// Table bits beyond those needed for one bucket per key: the bucket tables have between 2
/// and 4 entries per key.
const EXTRA_BITS: u32 = 1;

/// The most table bits (16 Mi entries, 64 MiB) whatever the key count.
const MAX_BITS: u32 = 24;

/// Windows up to this many keys are counted with straight-line compares; longer ones are
/// binary-searched.
const COUNTED_WINDOW: usize = 8;

/// How many of the `window` sorted keys from `at` on are `<= x`: straight-line compares for
/// the power-of-two widths up to [`COUNTED_WINDOW`], a branch-free binary search beyond.
/// `keys` must hold `window` keys from `at` on (the layouts pad with `u64::MAX`).
#[inline(always)]
fn window_rank(keys: &[u64], at: usize, window: usize, x: u64) -> usize {
    match window {
        1 => count::<1>(keys, at, x),
        2 => count::<2>(keys, at, x),
        4 => count::<4>(keys, at, x),
        COUNTED_WINDOW => count::<COUNTED_WINDOW>(keys, at, x),
        _ => search(keys, at, window, x),
    }
}

/// How many of the `W` keys from `at` on are `<= x` (straight-line, no branches).
#[inline(always)]
fn count<const W: usize>(keys: &[u64], at: usize, x: u64) -> usize {
    let window: &[u64; W] = keys[at..at + W]
        .try_into()
        .expect("the padding keeps every window in bounds");
    window.iter().map(|&k| usize::from(k <= x)).sum()
}

/// How many of the `width` sorted keys from `at` on are `<= x`, by a branch-free binary
/// search.
#[inline(always)]
fn search(keys: &[u64], at: usize, width: usize, x: u64) -> usize {
    let window = &keys[at..at + width];
    let (mut base, mut size) = (0usize, width);
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = if window[mid] <= x { mid } else { base };
        size -= half;
    }
    base + usize::from(window[base] <= x)
}
