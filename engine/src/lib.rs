//! Partitioning schemes, the parallel replay engine and the metrics of shardlab.
//!
//! ```
//! use analysis::schemes::{BuildContext, SchemeSpec};
//! let spec = &SchemeSpec::parse_list("hash").unwrap()[0];
//! let ctx = BuildContext { shards: 16, warmup_keys: &[], key_type: Default::default(), weights: None };
//! let hash = spec.build(&ctx).unwrap();
//! assert!(hash.shard_of(b"user42") < 16);
//! ```

pub mod advice;
pub mod dynamic;
pub mod error;
pub mod key_counts;
pub mod layout;
pub mod partitioner;
pub mod placement;
pub mod plan;
pub mod schemes;
pub mod shard_count;

pub use error::AnalysisError;
pub use key_counts::KeyCounts;
pub use partitioner::{Partitioner, RemovalEffect, ShardId, ShardSet};
pub use shard_count::ShardCount;
pub mod metrics;
pub mod replay;
pub mod route;
pub mod warmup;
