//! Key workloads for shardlab: the [`Event`] model, trace readers and seeded synthetic
//! generators, all streamed as [`EventChunk`]s through the [`EventSource`] trait.
//!
//! ```
//! use workloads::{collect, WorkloadSpec};
//! let spec = WorkloadSpec::parse("zipf:keys=1000,s=0.99").unwrap();
//! let mut source = spec.open(42, 100).unwrap();
//! let events = collect(source.as_mut()).unwrap();
//! assert_eq!(events.len(), 100);
//! ```

pub mod error;
pub mod event;
pub mod inspect;
pub mod key;
pub mod output;
pub mod piece;
pub mod prefetch;
pub mod source;
pub mod spec;
pub mod stats;
pub mod synthetic;
pub mod table;
pub mod trace;
pub mod xxh3_8;

pub use error::WorkloadError;
pub use event::{Event, EventChunk, Op};
pub use key::KeyType;
pub use piece::{Piece, PieceDecoder};
pub use source::{collect, EventSource};
pub use spec::{Spec, SpecError};
pub use synthetic::WorkloadSpec;
