//! The one replay pass of shardlab: the warm-up, the parallel replay of every scheme, the
//! registered metrics and their accumulators, the range simulation of `range-dynamic`,
//! routing keys (`shardlab route`) and the partial-run protocol (`run --part` and `merge`).
//! The schemes themselves live in the `schemes` crate; planning and advice build on this one.

pub mod dynamic;
pub mod metrics;
pub mod part;
pub mod replay;
pub mod route;
pub mod warmup;
