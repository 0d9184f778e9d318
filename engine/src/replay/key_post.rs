//! How the replay's workers hand each other the point keys to count ([`Post`]).
//!
//! Worker `w` of `W` routes chunks `w`, `w + W`, ... and counts the key-space parts
//! [`KeyParts::owned_by`](schemes::key_counts::KeyParts::owned_by) gives it. It hashes the keys of the chunks it routes once and sorts
//! them out by the worker that counts their part
//! ([`KeyParts::sort_out`](schemes::key_counts::KeyParts::sort_out)); then it counts
//! the keys sorted out to it chunk after chunk, in stream order: the chunks before its own
//! from the workers that routed them, then its own. Each part thus sees its keys in stream
//! order, as in a single-threaded count, and no key is hashed twice.
//!
//! Every worker posts one batch (maybe empty) per chunk it routes to every other worker, in
//! chunk order, and waits for the batches of chunk `c` only after routing its own chunks
//! before `c`: every chunk before `c` is routed by a worker that waits only for chunks before
//! it, so the workers cannot deadlock; and a worker routes chunk `c` only once every chunk
//! before its previous one is counted, so it is at most one round of `W` chunks ahead of the
//! others and the unbounded channels hold a few batches each.

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};

use schemes::key_counts::{HashedKeys, PartCounts};

/// One worker's end of the key hand-off between the replay's workers.
pub(super) struct Post {
    worker: usize,
    workers: usize,
    /// The keys of the chunk being routed, one batch per worker (this worker's own included).
    outs: Vec<HashedKeys>,
    /// To each other worker (`None` for this one).
    to: Vec<Option<Sender<HashedKeys>>>,
    /// From each other worker (`None` for this one).
    from: Vec<Option<Receiver<HashedKeys>>>,
    /// Counted batches go back to the worker that filled them, to be filled again.
    give_back: Vec<Sender<HashedKeys>>,
    spares: Receiver<HashedKeys>,
    /// The stream position (in chunks) of the next chunk whose keys are counted here.
    next: usize,
    /// The stream position of the next chunk routed here.
    mine: usize,
}

impl Post {
    /// The posts of `workers` workers, in worker order, for a stream whose first chunk is
    /// chunk `first` of the whole stream (a part of it starts past 0): chunk `c` is routed by
    /// worker `c mod W`.
    pub(super) fn all(workers: usize, first: usize) -> Vec<Post> {
        let mut to: Vec<Vec<Option<Sender<HashedKeys>>>> = (0..workers)
            .map(|_| (0..workers).map(|_| None).collect())
            .collect();
        let mut from: Vec<Vec<Option<Receiver<HashedKeys>>>> = (0..workers)
            .map(|_| (0..workers).map(|_| None).collect())
            .collect();
        for a in 0..workers {
            for b in (0..workers).filter(|&b| b != a) {
                let (tx, rx) = unbounded();
                to[a][b] = Some(tx);
                from[b][a] = Some(rx);
            }
        }
        let (give_back, spares): (Vec<_>, Vec<_>) =
            (0..workers).map(|_| bounded(4 * workers)).unzip();
        to.into_iter()
            .zip(from)
            .zip(spares)
            .enumerate()
            .map(|(worker, ((to, from), spares))| Post {
                worker,
                workers,
                outs: vec![HashedKeys::default(); workers],
                to,
                from,
                give_back: give_back.clone(),
                spares,
                next: first,
                mine: first + (worker + workers - first % workers) % workers,
            })
            .collect()
    }

    /// Where the keys of the next chunk routed here go
    /// ([`KeyParts::sort_out`](schemes::key_counts::KeyParts::sort_out)).
    pub(super) fn outs(&mut self) -> &mut [HashedKeys] {
        &mut self.outs
    }

    /// After a chunk is routed here and its keys sorted out: posts the other workers their
    /// keys, then counts into `keys` every chunk's keys up to this one, in stream order.
    pub(super) fn count_through(&mut self, keys: &mut PartCounts) {
        for other in (0..self.workers).filter(|&o| o != self.worker) {
            let spare = self.spares.try_recv().unwrap_or_default();
            let batch = std::mem::replace(&mut self.outs[other], spare);
            if let Some(to) = &self.to[other] {
                // A worker gone has panicked: the replay reports it when joining.
                let _ = to.send(batch);
            }
        }
        while self.next < self.mine && self.count_next(keys) {}
        let own = &mut self.outs[self.worker];
        keys.add_hashed(own);
        own.clear();
        self.next = self.mine + 1;
        self.mine += self.workers;
    }

    /// After the last chunk routed here: counts the keys of the chunks after it, until the
    /// stream's end (the first chunk that no worker posts).
    pub(super) fn count_rest(mut self, keys: &mut PartCounts) {
        while self.next % self.workers != self.worker && self.count_next(keys) {}
    }

    /// Counts the keys another worker posted for chunk `next`; false when that worker is
    /// done (the stream ended before that chunk).
    fn count_next(&mut self, keys: &mut PartCounts) -> bool {
        let sender = self.next % self.workers;
        let Some(Ok(mut batch)) = self.from[sender].as_ref().map(Receiver::recv) else {
            return false;
        };
        keys.add_hashed(&batch);
        batch.clear();
        let _ = self.give_back[sender].try_send(batch);
        self.next += 1;
        true
    }
}
