//! Per-shard load: requests per shard over the whole replay and per window of events.

use serde::{Deserialize, Serialize};
use statrs::statistics::Statistics;

/// Mergeable per-shard request counts, whole-trace and per window.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadAccumulator {
    shards: usize,
    window: u64,
    /// Per window index, the requests per shard (a window longer than a chunk comes in parts,
    /// added up by [`LoadAccumulator::finish`]). The whole-trace counts are their sums,
    /// added up once at the end rather than counted a second time for every request.
    windows: Vec<(u64, Vec<u32>)>,
}

impl LoadAccumulator {
    /// An empty accumulator for `shards` shards and windows of `window` events.
    pub fn new(shards: u32, window: u64) -> Self {
        LoadAccumulator {
            shards: shards as usize,
            window: window.max(1),
            windows: Vec::new(),
        }
    }

    /// Counts one request to `shard` made by the event at measured position `index`.
    #[inline]
    pub fn record(&mut self, index: u64, shard: u32) {
        let w = index / self.window;
        if self.windows.last().is_none_or(|(idx, _)| *idx != w) {
            self.windows.push((w, vec![0; self.shards]));
        }
        if let Some((_, counts)) = self.windows.last_mut() {
            counts[shard as usize] += 1;
        }
    }

    /// Counts one request per event for a run of consecutive events: the event at measured
    /// position `first_index + i` made one request to `shards[i]`. The same as calling
    /// [`LoadAccumulator::record`] for each, with the window found once per window rather
    /// than once per event.
    pub fn record_run(&mut self, first_index: u64, shards: &[u32]) {
        let (mut index, mut rest) = (first_index, shards);
        while !rest.is_empty() {
            let w = index / self.window;
            let in_window = ((w + 1) * self.window - index).min(rest.len() as u64) as usize;
            let (now, later) = rest.split_at(in_window);
            if self.windows.last().is_none_or(|(idx, _)| *idx != w) {
                self.windows.push((w, vec![0; self.shards]));
            }
            if let Some((_, counts)) = self.windows.last_mut() {
                for &shard in now {
                    counts[shard as usize] += 1;
                }
            }
            index += in_window as u64;
            rest = later;
        }
    }

    /// Adds another accumulator's counts (parts of one window are added up at the end).
    pub fn merge(&mut self, other: LoadAccumulator) {
        self.windows.extend(other.windows);
    }

    /// The final figures over `events` measured events; windows are put in order, so the
    /// result does not depend on the order in which chunks were merged.
    pub fn finish(mut self, events: u64) -> ShardLoad {
        self.windows.sort_unstable_by_key(|(w, _)| *w);
        let mut windows: Vec<(u64, Vec<u32>)> = Vec::with_capacity(self.windows.len());
        for (w, counts) in self.windows {
            match windows.last_mut() {
                // A window's counts never pass its length, which is at most u32::MAX events.
                Some((last, sum)) if *last == w => {
                    sum.iter_mut().zip(counts).for_each(|(s, c)| *s += c)
                }
                _ => windows.push((w, counts)),
            }
        }
        let mut totals = vec![0u64; self.shards];
        for (_, counts) in &windows {
            totals
                .iter_mut()
                .zip(counts)
                .for_each(|(t, &c)| *t += u64::from(c));
        }
        // Window `w` holds the measured events from `w * window` on: `window` of them, but the
        // last window may be shorter.
        let window = self.window;
        let window_events = windows
            .iter()
            .map(|(w, _)| window.min(events.saturating_sub(w.saturating_mul(window))))
            .collect();
        ShardLoad::from_counts(
            totals,
            windows.into_iter().map(|(_, c)| c).collect(),
            window_events,
        )
    }
}

/// Requests per shard, and the statistics of their spread.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ShardLoad {
    /// Requests per shard.
    pub shard_requests: Vec<u64>,
    /// Requests per shard in each window, in window order.
    pub window_requests: Vec<Vec<u32>>,
    /// Measured events in each window, in window order (the last window may be shorter).
    pub window_events: Vec<u64>,
    /// Sum of all shard requests.
    pub requests: u64,
    /// Max shard requests / all requests (0 when there were none).
    pub hottest_shard_share: f64,
    /// `hottest_shard_share * N` (1.0 is a perfect spread).
    pub hottest_shard_ratio: f64,
    /// Population standard deviation of shard requests / their mean.
    pub load_cv: f64,
    /// The hottest shard's share within each window.
    pub window_hottest_share: Vec<f64>,
    /// The mean of `window_hottest_share` weighted by `window_events`, so that a short last
    /// window counts for its events only ([`windowed_mean`]).
    pub hottest_shard_share_windowed: f64,
    /// The weights the balance is measured per ([`ShardLoad::per_weight`]), so that a
    /// resample of the windows measures it the same way.
    #[serde(skip)]
    pub weights: Option<Vec<f64>>,
}

impl ShardLoad {
    /// Computes the statistics from whole-trace and per-window counts, and the measured events
    /// of each window (one per window of `window_requests`).
    pub fn from_counts(
        shard_requests: Vec<u64>,
        window_requests: Vec<Vec<u32>>,
        window_events: Vec<u64>,
    ) -> Self {
        debug_assert_eq!(window_requests.len(), window_events.len());
        let n = shard_requests.len().max(1) as f64;
        let requests: u64 = shard_requests.iter().sum();
        let hottest_shard_share =
            share(shard_requests.iter().copied().max().unwrap_or(0), requests);
        let loads: Vec<f64> = shard_requests.iter().map(|&c| c as f64).collect();
        let mean = loads.iter().mean();
        let load_cv = if requests == 0 || loads.len() < 2 {
            0.0
        } else {
            loads.iter().population_std_dev() / mean
        };
        let window_hottest_share: Vec<f64> = window_requests
            .iter()
            .map(|w| {
                let total: u64 = w.iter().map(|&c| c as u64).sum();
                share(w.iter().copied().max().unwrap_or(0) as u64, total)
            })
            .collect();
        let hottest_shard_share_windowed = windowed_mean(
            window_hottest_share
                .iter()
                .copied()
                .zip(window_weights(&window_events)),
        );
        ShardLoad {
            shard_requests,
            window_requests,
            window_events,
            requests,
            hottest_shard_share,
            hottest_shard_ratio: hottest_shard_share * n,
            load_cv,
            window_hottest_share,
            hottest_shard_share_windowed,
            weights: None,
        }
    }
}

impl ShardLoad {
    /// The balance measured per weight (`--weights`, one per shard): `hottest_shard_ratio`
    /// becomes the largest share / weight share (1.0: every shard holds exactly its weight's
    /// share) and `load_cv` is of requests / weight. Shares themselves are unchanged.
    pub fn per_weight(mut self, weights: &[f64]) -> Self {
        if weights.len() != self.shard_requests.len() || self.requests == 0 {
            return self;
        }
        let total: f64 = weights.iter().sum();
        let normalised: Vec<f64> = self
            .shard_requests
            .iter()
            .zip(weights)
            .map(|(&c, w)| c as f64 * total / (w * weights.len() as f64))
            .collect();
        self.hottest_shard_ratio = self
            .shard_requests
            .iter()
            .zip(weights)
            .map(|(&c, w)| (c as f64 / self.requests as f64) / (w / total))
            .fold(0.0, f64::max);
        self.load_cv = if normalised.len() < 2 {
            0.0
        } else {
            normalised.iter().population_std_dev() / normalised.iter().mean()
        };
        self.weights = Some(weights.to_vec());
        self
    }

    /// Each window's hottest shard measured against its capacity, in the unit of a share of
    /// equal shards: with `--weights` the largest of `share × W / (N · w)` over the shards
    /// (`w` a shard's weight, `W` their sum), so every shard at its weight's share gives 1/N;
    /// without weights, `window_hottest_share` itself.
    pub fn window_hottest_per_capacity(&self) -> Vec<f64> {
        let Some(weights) = &self.weights else {
            return self.window_hottest_share.clone();
        };
        let per_equal_share = weights.iter().sum::<f64>() / weights.len() as f64;
        self.window_requests
            .iter()
            .map(|window| {
                let requests: u64 = window.iter().map(|&c| u64::from(c)).sum();
                window
                    .iter()
                    .zip(weights)
                    .map(|(&c, w)| share(u64::from(c), requests) * per_equal_share / w)
                    .fold(0.0, f64::max)
            })
            .collect()
    }

    /// [`ShardLoad::window_hottest_per_capacity`] averaged over the windows as
    /// `hottest_shard_share_windowed` is (weighted by their events): what saturates first
    /// when shards differ in capacity; `hottest_shard_share_windowed` without weights.
    pub fn hottest_per_capacity_windowed(&self) -> f64 {
        if self.weights.is_none() {
            return self.hottest_shard_share_windowed;
        }
        windowed_mean(
            self.window_hottest_per_capacity()
                .into_iter()
                .zip(window_weights(&self.window_events)),
        )
    }

    /// Each shard's share of all requests; `None` without requests.
    pub fn shard_shares(&self) -> Option<Vec<f64>> {
        (self.requests > 0).then(|| {
            self.shard_requests
                .iter()
                .map(|&r| share(r, self.requests))
                .collect()
        })
    }
}

/// Each window's weight in the windowed figures: its events over the most events of any
/// window, so 1.0 exactly for every full window (equal full windows then give exactly the
/// plain mean) and less for a short last one.
pub fn window_weights(window_events: &[u64]) -> impl Iterator<Item = f64> + '_ {
    let full = window_events.iter().copied().max().unwrap_or(0).max(1) as f64;
    window_events.iter().map(move |&e| e as f64 / full)
}

/// The mean of `(value, weight)` pairs weighted by their weights, in order; 0 when the
/// weights add up to 0.
pub fn windowed_mean(pairs: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    let (sum, weights) = pairs
        .into_iter()
        .fold((0.0, 0.0), |(s, t), (v, w)| (s + v * w, t + w));
    if weights > 0.0 {
        sum / weights
    } else {
        0.0
    }
}

fn share(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

/// A load as the block bootstrap measures it: the measured load, or one resample of its
/// windows (see [`super::confidence`]); what the load metrics are computed from.
pub struct LoadSample<'a> {
    /// Requests per shard (per weight with `--weights`) and their figures.
    pub load: &'a ShardLoad,
    /// Measured events.
    pub events: u64,
    /// The hottest shard's share per window, averaged weighted by the windows' events.
    pub hottest_windowed: f64,
    /// The same per capacity (equal to `hottest_windowed` without `--weights`).
    pub capacity_windowed: f64,
}

impl<'a> LoadSample<'a> {
    /// The measured `load` over `events` events.
    pub fn measured(load: &'a ShardLoad, events: u64) -> LoadSample<'a> {
        LoadSample {
            load,
            events,
            hottest_windowed: load.hottest_shard_share_windowed,
            capacity_windowed: load.hottest_per_capacity_windowed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_cv_match_hand_computed_values() {
        // loads 6, 2, 2, 0: share 0.6, ratio 2.4, mean 2.5, population sd sqrt(4.75); two
        // windows of 5 events (scans: 4 and 6 requests)
        let load = ShardLoad::from_counts(
            vec![6, 2, 2, 0],
            vec![vec![3, 1, 0, 0], vec![3, 1, 2, 0]],
            vec![5, 5],
        );
        assert_eq!(load.requests, 10);
        assert!((load.hottest_shard_share - 0.6).abs() < 1e-12);
        assert!((load.hottest_shard_ratio - 2.4).abs() < 1e-12);
        assert!((load.load_cv - 4.75f64.sqrt() / 2.5).abs() < 1e-12);
        assert!((load.hottest_shard_share_windowed - (0.75 + 0.5) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_short_last_window_weighs_by_its_events() {
        // Windows of 4 events, 9 measured over 3 shards; the last event is a scan of shards
        // 2 and 0. Windows [2,1,1] (share 1/2, 4 events), [3,1,0] (3/4, 4 events) and [1,0,1]
        // (1/2, 1 event): (4/2 + 4·3/4 + 1/2) / 9 = 5.5/9, where the plain mean over windows
        // is 1.75/3 and a mean weighted by requests (4, 4, 2) 6/10.
        let mut acc = LoadAccumulator::new(3, 4);
        acc.record_run(0, &[0, 0, 1, 2, 0, 0, 0, 1]);
        acc.record(8, 2);
        acc.record(8, 0);
        let load = acc.finish(9);
        assert_eq!(load.window_events, [4, 4, 1]);
        assert_eq!(load.window_hottest_share, [0.5, 0.75, 0.5]);
        assert!((load.hottest_shard_share_windowed - 5.5 / 9.0).abs() < 1e-12);
        // One event past whole windows moves the figure by little, not towards 1.
        let mut acc = LoadAccumulator::new(2, 4);
        acc.record_run(0, &[0, 1, 0, 1, 0, 1, 0, 1, 0]);
        let load = acc.finish(9);
        assert_eq!(load.window_hottest_share, [0.5, 0.5, 1.0]);
        assert!((load.hottest_shard_share_windowed - 5.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn equal_windows_give_exactly_the_plain_mean_and_one_window_its_share() {
        let windows: Vec<Vec<u32>> = (0..7u32).map(|i| vec![i % 3 + 1, 4, i % 5]).collect();
        let totals = (0..3)
            .map(|s| windows.iter().map(|w| u64::from(w[s])).sum())
            .collect();
        let load = ShardLoad::from_counts(totals, windows, vec![9; 7]);
        let plain = load.window_hottest_share.iter().sum::<f64>() / 7.0;
        assert_eq!(load.hottest_shard_share_windowed, plain);
        let one = ShardLoad::from_counts(vec![3, 1], vec![vec![3, 1]], vec![4]);
        assert_eq!(one.hottest_shard_share_windowed, 0.75);
    }

    #[test]
    fn windows_merge_in_window_order_whatever_the_merge_order() {
        let mut a = LoadAccumulator::new(2, 2);
        let mut b = LoadAccumulator::new(2, 2);
        b.record(2, 1);
        b.record(3, 1);
        a.record(0, 0);
        a.record(1, 1);
        let mut ab = a.clone();
        ab.merge(b.clone());
        b.merge(a);
        let (x, y) = (ab.finish(4), b.finish(4));
        assert_eq!(x.window_requests, vec![vec![1, 1], vec![0, 2]]);
        assert_eq!(x.window_requests, y.window_requests);
        assert_eq!(x.shard_requests, vec![1, 3]);
    }

    #[test]
    fn a_run_counts_as_its_events_recorded_one_by_one() {
        let shards: Vec<u32> = (0..23u32).map(|i| (i * 7) % 3).collect();
        let (mut one, mut run) = (LoadAccumulator::new(3, 5), LoadAccumulator::new(3, 5));
        for (i, &s) in shards.iter().enumerate() {
            one.record(13 + i as u64, s);
        }
        run.record_run(13, &shards[..4]);
        run.record_run(17, &shards[4..]);
        let (one, run) = (one.finish(36), run.finish(36));
        assert_eq!(one.shard_requests, run.shard_requests);
        assert_eq!(run.shard_requests, [8, 8, 7]);
        assert_eq!(one.window_requests, run.window_requests);
        assert_eq!(run.window_requests.len(), 6); // events 13..36: windows 2 to 7
    }

    #[test]
    fn the_parts_of_a_window_split_between_accumulators_are_added_up() {
        // Window of 10 events split at event 4 between two workers: one window of 5 + 5.
        let (mut a, mut b) = (LoadAccumulator::new(2, 10), LoadAccumulator::new(2, 10));
        a.record_run(0, &[0, 0, 1, 0]);
        b.record_run(4, &[1, 1, 1, 0, 0, 1]);
        b.merge(a);
        let load = b.finish(10);
        assert_eq!(load.window_requests, [vec![5, 5]]);
        assert_eq!(load.window_hottest_share, [0.5]);
    }

    #[test]
    fn an_empty_load_has_zero_shares() {
        let load = ShardLoad::from_counts(vec![0, 0], vec![], vec![]);
        assert_eq!(load.hottest_shard_share, 0.0);
        assert_eq!(load.load_cv, 0.0);
    }

    #[test]
    fn per_weight_balance_divides_each_share_by_its_weight_share() {
        // Shares 1/3 and 2/3 on weights 1 and 2: perfect.
        let load = ShardLoad::from_counts(vec![100, 200], vec![], vec![]).per_weight(&[1.0, 2.0]);
        assert!((load.hottest_shard_ratio - 1.0).abs() < 1e-12);
        assert!(load.load_cv.abs() < 1e-12);
        // Even shares on weights 1 and 3: shard 0 holds 0.5 of a 0.25 weight share.
        let load = ShardLoad::from_counts(vec![100, 100], vec![], vec![]).per_weight(&[1.0, 3.0]);
        assert!((load.hottest_shard_ratio - 2.0).abs() < 1e-12);
        assert!((load.hottest_shard_share - 0.5).abs() < 1e-12);
    }
}
