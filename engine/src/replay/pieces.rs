//! The reading side of the replay's stream: [`PieceCutter`] cuts the measured events into
//! numbered pieces (moving bytes only, where the source can), which the workers decode and
//! route (`PieceRouter` in the parent module). The workers share the cutter and take turns
//! with it ([`Turns`]): piece `i` is cut by worker `i mod W`, the one that routes it, so that
//! its bytes are read into the cache of the core that decodes them and no thread only reads
//! (`--threads 1` uses one core).

use std::sync::{Condvar, Mutex};

use workloads::{EventSource, Piece, WorkloadError};

/// An error and the number of the piece it was met in (the first in the stream is reported,
/// whichever thread met it first).
pub(super) type PieceError = (usize, WorkloadError);

/// Cuts a stream into pieces of whole chunks, numbered in stream order.
pub(super) struct PieceCutter {
    source: Box<dyn EventSource>,
    chunk_events: u64,
    /// The position of the next event, while every piece so far was counted.
    next: u64,
    counted: bool,
    /// The number of the next piece.
    seq: usize,
    ended: bool,
}

impl PieceCutter {
    /// Cuts `source`, whose first event is at position `first`, into pieces ending at
    /// multiples of `chunk_events` in the whole stream; the first piece is number `first_seq`.
    pub(super) fn new(
        source: Box<dyn EventSource>,
        chunk_events: u64,
        first: u64,
        first_seq: usize,
    ) -> Self {
        PieceCutter {
            source,
            chunk_events,
            next: first,
            counted: true,
            seq: first_seq,
            ended: false,
        }
    }

    /// The number of the next piece.
    fn next_seq(&self) -> usize {
        self.seq
    }

    /// Refills `piece` with the next piece of the stream and its number; `None` at the end.
    pub(super) fn cut(&mut self, mut piece: Piece) -> Result<Option<(usize, Piece)>, PieceError> {
        if self.ended {
            return Ok(None);
        }
        piece.clear();
        // Counted pieces end at multiples of `chunk_events` in the whole stream (a part that
        // starts elsewhere has a shorter first chunk), so that chunk `i` is routed by worker
        // `i mod W` however the stream is cut. A piece of text lines ends where the source
        // cuts it (the results do not depend on where pieces end).
        let size = match self.counted {
            true => self.chunk_events - self.next % self.chunk_events,
            false => self.chunk_events,
        };
        while piece.counted() && (piece.len() as u64) < size {
            let room = (size - piece.len() as u64) as usize;
            match self.source.fill_piece(&mut piece, room) {
                Ok(0) => {
                    self.ended = true;
                    break;
                }
                Ok(_) => {}
                // A malformed record among the raw bytes read before comes first.
                Err(e) => return Err((self.seq, piece.decode().err().unwrap_or(e))),
            }
        }
        if piece.is_empty() {
            self.ended = true;
            return Ok(None);
        }
        self.next += piece.len() as u64;
        self.counted &= piece.counted();
        self.seq += 1;
        Ok(Some((self.seq - 1, piece)))
    }
}

/// The cutter, shared by the workers in turn: piece `i` is cut by worker `i mod W`.
pub(super) struct Turns {
    /// The cutter, and whether cutting has stopped (the stream ended, or an error).
    cutter: Mutex<(PieceCutter, bool)>,
    next: Condvar,
}

impl Turns {
    /// Turns at `cutter`, starting with the worker of its next piece.
    pub(super) fn new(cutter: PieceCutter) -> Self {
        Turns {
            cutter: Mutex::new((cutter, false)),
            next: Condvar::new(),
        }
    }

    /// Waits for worker `worker`'s (of `workers`) turn, then refills `piece` with the next
    /// piece and its number; `None` once the stream has ended or cutting has stopped. An
    /// error stops the cutting for every worker.
    pub(super) fn cut(
        &self,
        worker: usize,
        workers: usize,
        piece: Piece,
    ) -> Result<Option<(usize, Piece)>, PieceError> {
        let mut turn = self.cutter.lock().unwrap_or_else(|e| e.into_inner());
        while !turn.1 && turn.0.next_seq() % workers != worker {
            turn = self.next.wait(turn).unwrap_or_else(|e| e.into_inner());
        }
        if turn.1 {
            return Ok(None);
        }
        let cut = turn.0.cut(piece);
        turn.1 = !matches!(cut, Ok(Some(_)));
        drop(turn);
        self.next.notify_all();
        cut
    }

    /// Stops the cutting: every worker's next turn ends its run.
    pub(super) fn stop(&self) {
        self.cutter.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        self.next.notify_all();
    }
}
