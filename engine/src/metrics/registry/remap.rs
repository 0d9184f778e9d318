//! Remap on growth or shrink, and where the requests land on the resized layout: measured for
//! every target shard count on the distinct keys, by each scheme's own resize rule.

use crate::metrics::key_sample::{KeySample, MetricEstimate};
use crate::metrics::metric::{Accumulator, Finish, Metric};
use crate::metrics::{remap, MetricDef, SchemeResult, WorkloadResult};
use schemes::AnalysisError;

/// `remap_fraction` to `hottest_shard_share_grown`.
pub struct RemapMetric;

impl Metric for RemapMetric {
    fn name(&self) -> &'static str {
        "remap"
    }

    fn defs(&self) -> &'static [MetricDef] {
        &[
            MetricDef { name: "remap_fraction", unit: "share", definition: "Distinct keys whose owner changes from N to M shards / distinct keys." },
            MetricDef { name: "remap_fraction_traffic", unit: "share", definition: "Point requests whose key changes owner from N to M / point requests." },
            MetricDef { name: "remap_ideal", unit: "share", definition: "The least any scheme must move: |M-N| / max(M,N)." },
            MetricDef { name: "remap_to_new_shards", unit: "share", definition: "Of the keys that move, the share that moves to a shard added by the growth." },
            MetricDef { name: "grow_added_share", unit: "share", definition: "Measured point requests, replayed on the layout grown to M shards, that land on the added shards / all point requests (empty for a shrink); for `range` and `salted`, whose cuts are learned from the keys, over the held-out half of the keys only (out-of-sample growth)." },
            MetricDef { name: "grow_added_fair", unit: "share", definition: "The added shards' fair share (M-N)/M (empty for a shrink); below half of it the new shards stay nearly idle." },
            MetricDef { name: "hottest_shard_share_grown", unit: "share", definition: "Max shard point requests / all point requests on the layout resized to M shards (for `range` and `salted`, over the held-out half of the keys)." },
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

    fn value(&self, name: &str, _: &WorkloadResult, s: &SchemeResult) -> Option<Option<f64>> {
        let r = &s.remap;
        // Empty when the scheme cannot reach the target ([`remap::Remap::refusal`]).
        let moved = |x: f64| Some(Some(x).filter(|_| r.refusal.is_none()));
        match name {
            "remap_fraction" => moved(r.remap_fraction),
            "remap_fraction_traffic" => moved(r.remap_fraction_traffic),
            "remap_ideal" => moved(r.remap_ideal),
            "remap_to_new_shards" => moved(r.moved_to_new_shards),
            "grow_added_share" => Some(r.growth.added_share),
            "grow_added_fair" => Some(r.growth.added_fair),
            "hottest_shard_share_grown" => Some(r.growth.hottest_share_after),
            _ => None,
        }
    }

    fn estimate(
        &self,
        name: &str,
        _: &WorkloadResult,
        s: &SchemeResult,
        ks: &KeySample,
    ) -> Option<MetricEstimate> {
        let r = &s.remap;
        match name {
            "remap_fraction" => ks.share(r.remap_fraction, ks.sampled_keys as f64),
            "remap_fraction_traffic" => ks.share(r.remap_fraction_traffic, ks.effective_keys),
            "remap_to_new_shards" => ks.share(
                r.moved_to_new_shards,
                r.remap_fraction * ks.sampled_keys as f64,
            ),
            "grow_added_share" => ks.share(r.growth.added_share?, ks.effective_keys),
            "hottest_shard_share_grown" if r.growth.hottest_share_after.is_some() => {
                ks.unintervalled()
            }
            _ => None,
        }
    }
}
