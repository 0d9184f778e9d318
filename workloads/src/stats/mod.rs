//! Bounded-memory statistics of key streams, shared by `shardlab inspect` and the replay:
//! distinct keys exact up to a limit then sampled ([`KeyTable`]), the heaviest keys
//! ([`SpaceSaving`]), a Zipf fit ([`zipf_fit`]) and estimates with confidence intervals
//! ([`Estimate`]).
//!
//! ```
//! use workloads::stats::KeyTable;
//! let mut keys = KeyTable::with_limit(1000);
//! for i in 0..10_000u64 {
//!     keys.add(&(i % 5000).to_be_bytes(), 1);
//! }
//! let distinct = keys.distinct();
//! assert!(distinct.sample_rate < 1.0);
//! assert!(distinct.ci_low <= 5000.0 && 5000.0 <= distinct.ci_high);
//! ```

mod entry_table;
pub mod estimate;
pub mod key_table;
pub mod space_saving;
pub mod zipf_fit;

pub use estimate::{distinct_estimate, share_estimate, Estimate};
pub use key_table::{sample_hash, KeyTable, KeyTableState, DEFAULT_DISTINCT_LIMIT};
pub use space_saving::{HeavyHitter, SpaceSaving, SpaceSavingState};
pub use zipf_fit::ZipfFit;
