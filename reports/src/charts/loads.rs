//! The per-shard loads that the load charts of a workload draw.

use super::ChartInput;
use crate::data::SchemeLoad;

/// Each scheme's load at the workload's first shard count, in scheme order; none when the
/// workload has no shard count.
pub fn base_loads<'a>(input: &ChartInput<'a>) -> Vec<&'a SchemeLoad> {
    let (data, w) = (input.data, input.workload());
    let Some(n) = data.base_shards(w) else {
        return vec![];
    };
    data.schemes_at(w, n)
        .into_iter()
        .filter_map(|s| data.load_of(w, s, n))
        .collect()
}

/// The [`base_loads`] that have per-window counts (rows in `windows.csv`).
pub fn windowed_loads<'a>(input: &ChartInput<'a>) -> Vec<&'a SchemeLoad> {
    base_loads(input)
        .into_iter()
        .filter(|l| !l.window_requests.is_empty())
        .collect()
}
