//! What a scenario run counts of the requests it serves ([`Served`]): node requests, those
//! its token buckets throttle, events unavailable; over the run and in the current window.

use super::throttle::{Buckets, Throttle};

/// Requests served, throttled and unavailable.
pub struct Served {
    /// Token buckets per node (`--throttle`).
    buckets: Option<Buckets>,
    /// Node requests of the run.
    node_requests: u64,
    /// Of them, throttled.
    throttled: u64,
    /// Events of the run none of whose nodes answered.
    unavailable: u64,
    /// Throttled node requests and unavailable events of the current window.
    window: (u64, u64),
}

impl Served {
    /// Nothing counted yet on `nodes` nodes, with full buckets when `throttle` is given.
    pub fn new(throttle: Option<Throttle>, nodes: u32) -> Served {
        Served {
            buckets: throttle.map(|t| Buckets::new(t, nodes)),
            node_requests: 0,
            throttled: 0,
            unavailable: 0,
            window: (0, 0),
        }
    }

    /// Full buckets for nodes added up to `nodes`.
    pub fn grow(&mut self, nodes: u32) {
        if let Some(b) = &mut self.buckets {
            b.grow(nodes);
        }
    }

    /// An event none of whose nodes answered.
    pub fn unavailable(&mut self) {
        self.unavailable += 1;
        self.window.1 += 1;
    }

    /// A request to `node` at whole second `second` (a read or a write), throttled when its
    /// bucket has no token.
    pub fn request(&mut self, node: u32, second: u64, write: bool) {
        self.node_requests += 1;
        if let Some(b) = &mut self.buckets {
            if !b.admit(second, node, write) {
                self.throttled += 1;
                self.window.0 += 1;
            }
        }
    }

    /// The throttled node requests and unavailable events of the window that ends; the next
    /// one starts from 0.
    pub fn end_window(&mut self) -> (u64, u64) {
        std::mem::take(&mut self.window)
    }

    /// Throttled node requests / node requests; `None` without buckets or requests.
    pub fn throttled_share(&self) -> Option<f64> {
        self.buckets.as_ref()?;
        (self.node_requests > 0).then(|| self.throttled as f64 / self.node_requests as f64)
    }

    /// Unavailable events / `events`; `None` without events.
    pub fn unavailable_share(&self, events: u64) -> Option<f64> {
        (events > 0).then(|| self.unavailable as f64 / events as f64)
    }
}
