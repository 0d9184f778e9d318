//! The one replay pass of shardlab: the warm-up, the parallel replay of every scheme, the
//! registered metrics and their accumulators, the replay of layouts that change (`range-dynamic`),
//! routing keys (`shardlab route`) and the partial-run protocol (`run --part` and `merge`).
//! The schemes themselves live in the `schemes` crate; planning and advice build on this one.

pub mod changing;
pub mod metrics;
pub mod part;
pub mod replay;
pub mod route;
pub mod warmup;
