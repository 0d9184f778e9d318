//! The stream position of each piece's first event, handed from piece to piece in stream
//! order ([`Positions`]): a piece of text lines knows how many events it holds only once
//! a worker has decoded it, so the workers learn where their pieces start from the pieces
//! before them.

use std::sync::{Condvar, Mutex};

/// Whose turn it is: the next piece's number and the position of its first event, or
/// `None` once a piece failed to decode (the pieces after it are not measured).
type Turn = Option<(usize, u64)>;

/// Positions passed from piece to piece, in stream order.
pub(super) struct Positions {
    turn: Mutex<Turn>,
    next: Condvar,
}

impl Positions {
    /// Piece `seq` is the first, starting at position `first`.
    pub(super) fn new(seq: usize, first: u64) -> Self {
        Positions {
            turn: Mutex::new(Some((seq, first))),
            next: Condvar::new(),
        }
    }

    /// Waits until every piece before piece `seq` has passed on its length, and passes on
    /// that piece `seq` holds `len` events; the position of its first event, or `None` when
    /// a piece before it failed.
    pub(super) fn take(&self, seq: usize, len: usize) -> Option<u64> {
        let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match *turn {
                None => return None,
                Some((next, first)) if next == seq => {
                    *turn = Some((seq + 1, first + len as u64));
                    self.next.notify_all();
                    return Some(first);
                }
                Some(_) => turn = self.next.wait(turn).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// A piece failed: every piece waiting for its turn stops.
    pub(super) fn fail(&self) {
        *self.turn.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.next.notify_all();
    }
}
