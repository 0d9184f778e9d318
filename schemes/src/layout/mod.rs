//! Search layouts behind the key-range and ring lookups.
//!
//! - [`RadixIndex`]: "how many sorted `u64` keys are `<= x`" from one cache line of key
//!   fingerprints per bucket of the key bits (plus the bucket's start, loaded beside it);
//!   exact for any keys.
//! - [`KeyIndex`]: the same question for byte-string split keys, through their 8-byte
//!   prefixes, with a full comparison only where prefixes tie.
//! - [`SegmentedIndex`]: the `u64` question per segment (per salt bucket) in one table.
//!
//! Every layout answers exactly as `partition_point` over the plain sorted list does (unit
//! tests here, property tests in `tests/layouts.rs`); `benches/lookup.rs` measures them
//! against `partition_point` and `BTreeMap`.

mod key_index;
mod lines;
mod radix;
mod segmented;

pub use key_index::{prefix8, KeyIndex};
pub use radix::RadixIndex;
pub use segmented::SegmentedIndex;
