//! A cache-line prefetch hint, for loops that know which memory they will touch a few
//! iterations ahead (the key table's home slots, the range index's lines).
//!
//! The workspace forbids `unsafe`; `safe_arch` wraps the x86 `prefetcht0` instruction (part of
//! baseline x86-64) in a safe function, which it can be since a prefetch never faults and has
//! no visible effect. On other targets the hint is a no-op.

/// Asks the processor to bring the cache line holding `value` into every cache level.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    safe_arch::prefetch_t0(value);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = value;
}
