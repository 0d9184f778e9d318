//! Remap on growth or shrink, and where the requests land on the resized layout: measured for
//! every target shard count on the distinct keys, by each scheme's own resize rule.

use crate::metrics::key_sample::{KeySample, MetricEstimate};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{remap, MetricDef, MetricId, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// `remap_fraction`: Distinct keys whose owner changes from N to M shards / distinct keys.
pub const REMAP_FRACTION: MetricId = MetricId("remap_fraction");
/// `remap_fraction_traffic`: Point requests whose key changes owner from N to M / point requests.
pub const REMAP_FRACTION_TRAFFIC: MetricId = MetricId("remap_fraction_traffic");
/// `remap_ideal`: The least any scheme must move: |M-N| / max(M,N).
pub const REMAP_IDEAL: MetricId = MetricId("remap_ideal");
/// `remap_to_new_shards`: Of the keys that move, the share that moves to a shard added by the growth.
pub const REMAP_TO_NEW_SHARDS: MetricId = MetricId("remap_to_new_shards");
/// `grow_added_share`: Measured point requests, replayed on the layout grown to M shards, that land on the added ....
pub const GROW_ADDED_SHARE: MetricId = MetricId("grow_added_share");
/// `grow_added_fair`: The added shards' fair share (M-N)/M (empty for a shrink); below half of it the new ....
pub const GROW_ADDED_FAIR: MetricId = MetricId("grow_added_fair");
/// `hottest_shard_share_grown`: Max shard point requests / all point requests on the layout resized to M shards (for ....
pub const HOTTEST_SHARD_SHARE_GROWN: MetricId = MetricId("hottest_shard_share_grown");

/// `remap_fraction` to `hottest_shard_share_grown`.
pub struct RemapMetric;

impl Metric for RemapMetric {
    fn name(&self) -> &'static str {
        "remap"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: REMAP_FRACTION.0, unit: "share", definition: "Distinct keys whose owner changes from N to M shards / distinct keys." },
            MetricDef { name: REMAP_FRACTION_TRAFFIC.0, unit: "share", definition: "Point requests whose key changes owner from N to M / point requests." },
            MetricDef { name: REMAP_IDEAL.0, unit: "share", definition: "The least any scheme must move: |M-N| / max(M,N)." },
            MetricDef { name: REMAP_TO_NEW_SHARDS.0, unit: "share", definition: "Of the keys that move, the share that moves to a shard added by the growth." },
            MetricDef { name: GROW_ADDED_SHARE.0, unit: "share", definition: "Measured point requests, replayed on the layout grown to M shards, that land on the added shards / all point requests (empty for a shrink); for `range` and `salted`, whose cuts are learned from the keys, over the held-out half of the keys only (out-of-sample growth)." },
            MetricDef { name: GROW_ADDED_FAIR.0, unit: "share", definition: "The added shards' fair share (M-N)/M (empty for a shrink); below half of it the new shards stay nearly idle." },
            MetricDef { name: HOTTEST_SHARD_SHARE_GROWN.0, unit: "share", definition: "Max shard point requests / all point requests on the layout resized to M shards (for `range` and `salted`, over the held-out half of the keys)." },
        ]
    }

    fn phase(&self, _: &Finish<'_>) -> Option<&'static str> {
        Some("remap")
    }

    fn finish(
        &self,
        _: Option<Box<dyn Accumulator>>,
        ctx: &Finish<'_>,
        rows: &mut [SchemeResult],
    ) -> Result<(), AnalysisError> {
        for (row, &m) in rows.iter_mut().zip(ctx.targets) {
            // A target the scheme cannot reach by its own rule is not applicable, not an error.
            if let Some(why) = ctx.part.resize_refusal(m) {
                row.remap = remap::Remap::refused(m, why);
                continue;
            }
            row.remap = remap::of_resize(ctx.part, m, ctx.keys)?;
        }
        Ok(())
    }

    fn value(&self, id: MetricId, _: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let r = &s.remap;
        // Empty when the scheme cannot reach the target ([`remap::Remap::refusal`]).
        let moved = |x: f64| Some(Some(x).filter(|_| r.refusal.is_none()));
        match id {
            REMAP_FRACTION => moved(r.remap_fraction),
            REMAP_FRACTION_TRAFFIC => moved(r.remap_fraction_traffic),
            REMAP_IDEAL => moved(r.remap_ideal),
            REMAP_TO_NEW_SHARDS => moved(r.moved_to_new_shards),
            GROW_ADDED_SHARE => Some(r.growth.added_share),
            GROW_ADDED_FAIR => Some(r.growth.added_fair),
            HOTTEST_SHARD_SHARE_GROWN => Some(r.growth.hottest_share_after),
            _ => None,
        }
    }

    fn estimate(
        &self,
        id: MetricId,
        _: &WorkloadResult,
        s: &SchemeResult,
        ks: &KeySample,
    ) -> Option<MetricEstimate> {
        let r = &s.remap;
        match id {
            REMAP_FRACTION => ks.share(r.remap_fraction, ks.sampled_keys as f64),
            REMAP_FRACTION_TRAFFIC => ks.share(r.remap_fraction_traffic, ks.effective_keys),
            REMAP_TO_NEW_SHARDS => ks.share(
                r.moved_to_new_shards,
                r.remap_fraction * ks.sampled_keys as f64,
            ),
            GROW_ADDED_SHARE => ks.share(r.growth.added_share?, ks.effective_keys),
            HOTTEST_SHARD_SHARE_GROWN if r.growth.hottest_share_after.is_some() => {
                ks.unintervalled()
            }
            _ => None,
        }
    }
}
