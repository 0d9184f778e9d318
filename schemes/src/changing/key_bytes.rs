//! The bytes of the keys a changing layout has seen ([`KeyBytes`]): what a shard or a range
//! that holds them weighs when it moves.

use std::collections::HashMap;

use workloads::Event;

/// The last value size of every key seen by a point event; a key weighs its length plus
/// that size (0 until an event carries one).
#[derive(Clone, Debug, Default)]
pub struct KeyBytes {
    sizes: HashMap<Vec<u8>, u32>,
}

impl KeyBytes {
    /// Records point event `e` and returns its key's bytes before (0 for a key not seen
    /// before) and after it: the holder of the key changes its bytes by the difference.
    /// `None` for scans and range writes, which weigh nothing.
    pub fn record(&mut self, e: &Event<'_>) -> Option<(u64, u64)> {
        if !e.is_point() {
            return None;
        }
        let len = e.key.len() as u64;
        Some(match self.sizes.get_mut(e.key) {
            Some(size) => {
                let old = len + u64::from(*size);
                *size = e.size.unwrap_or(*size);
                (old, len + u64::from(*size))
            }
            None => {
                let size = e.size.unwrap_or(0);
                self.sizes.insert(e.key.to_vec(), size);
                (0, len + u64::from(size))
            }
        })
    }
}
