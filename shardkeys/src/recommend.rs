//! The recommendation of `shardlab keys`: unsplittable candidates out, dominated options out,
//! then the most single-shard operations, ties within noise broken by the hottest shard.

use crate::candidate::Candidate;
use crate::figures::{share, KeyStats, Routing};
use crate::options::Options;

/// Two shares closer than this are a tie (one percentage point).
pub const NOISE: f64 = 0.01;

/// The chosen (candidate, scheme) and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recommendation {
    /// The recommended candidate and scheme; `None` when every candidate is unsplittable.
    pub chosen: Option<(String, String)>,
    /// Candidates whose most common value carries at least `--unsplittable` of their key
    /// operations.
    pub unsplittable: Vec<String>,
    /// Candidates whose `monotonic` is 1.
    pub monotonic: Vec<String>,
    /// One sentence per reason, in order.
    pub reasons: Vec<String>,
}

/// One (candidate, scheme) option's criteria, each oriented so that higher is better.
struct Option_ {
    cand: usize,
    scheme: usize,
    single_ops: f64,
    criteria: [f64; 5],
}

/// The criteria's names, in [`Option_::criteria`] order.
const CRITERIA: [&str; 5] = [
    "single-shard operations",
    "fewer scatter-gather reads",
    "a cooler hottest shard",
    "fewer cross-shard transactions",
    "fewer shard-key updates",
];

fn pct(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// Chooses by the rule in docs/keys.md ("Recommendation").
pub(crate) fn recommend(
    cands: &[Candidate],
    labels: &[String],
    stats: &[KeyStats],
    routing: &[Vec<Routing>],
    opts: &Options,
) -> Recommendation {
    let mut rec = Recommendation::default();
    let mut splittable = vec![true; cands.len()];
    for (c, st) in stats.iter().enumerate() {
        if let (Some((value, count)), Some(top1)) = (
            st.top.first(),
            st.top.first().and_then(|t| share(t.1, st.key_ops)),
        ) {
            if top1 >= opts.unsplittable {
                splittable[c] = false;
                rec.unsplittable.push(cands[c].label.clone());
                rec.reasons.push(format!(
                    "{} is unsplittable: its most common value '{value}' carries {} of its \
                     key operations ({count}), at least the {} one shard can hold alone",
                    cands[c].label,
                    pct(top1),
                    pct(opts.unsplittable)
                ));
            }
        }
        if let Some(r) = st.monotonicity.filter(|r| r.abs() >= 0.7) {
            rec.monotonic.push(cands[c].label.clone());
            rec.reasons.push(format!(
                "{} is monotonic (r = {r:.3}): under key ranges new values all land in the \
                 last range",
                cands[c].label
            ));
        }
    }
    let mut options = Vec::new();
    for (c, per_scheme) in routing.iter().enumerate() {
        for (s, r) in per_scheme.iter().enumerate() {
            let reads: u64 = r.reads.iter().sum();
            let ops = reads + r.writes.iter().sum::<u64>();
            let requests: u64 = r.load.iter().sum();
            let max = r.load.iter().copied().max().unwrap_or(0);
            let single_ops = share(r.reads[0] + r.writes[0], ops).unwrap_or(0.0);
            let criteria = [
                single_ops,
                -share(r.reads[2], reads).unwrap_or(0.0),
                -share(max, requests).unwrap_or(0.0),
                -r.cross_shard_txns().unwrap_or(0.0),
                -share(stats[c].key_updates, stats[c].writes).unwrap_or(0.0),
            ];
            options.push(Option_ {
                cand: c,
                scheme: s,
                single_ops,
                criteria,
            });
        }
    }
    let name = |o: &Option_| format!("{} under {}", cands[o.cand].label, labels[o.scheme]);
    let beats = |a: &Option_, b: &Option_| {
        a.criteria.iter().zip(&b.criteria).all(|(x, y)| x >= y)
            && a.criteria.iter().zip(&b.criteria).any(|(x, y)| x > y)
    };
    let mut pool: Vec<&Option_> = Vec::new();
    for o in options.iter().filter(|o| splittable[o.cand]) {
        match options.iter().find(|p| splittable[p.cand] && beats(p, o)) {
            Some(p) => rec.reasons.push(format!(
                "{} is not chosen: {} is as good or better on every criterion",
                name(o),
                name(p)
            )),
            None => pool.push(o),
        }
    }
    let Some(best) = pool.iter().map(|o| o.single_ops).reduce(f64::max) else {
        rec.reasons
            .push("no candidate is recommended: every candidate is unsplittable".into());
        return rec;
    };
    pool.retain(|o| o.single_ops >= best - NOISE);
    let coolest = pool
        .iter()
        .map(|o| o.criteria[2])
        .reduce(f64::max)
        .unwrap_or(0.0);
    pool.retain(|o| o.criteria[2] >= coolest - NOISE);
    let fewest_txn = pool
        .iter()
        .map(|o| o.criteria[3])
        .reduce(f64::max)
        .unwrap_or(0.0);
    pool.retain(|o| o.criteria[3] >= fewest_txn - NOISE);
    pool.sort_by_key(|o| (cands[o.cand].parts.len(), o.cand, o.scheme));
    let chosen = pool[0];
    let runner_up = options
        .iter()
        .filter(|o| splittable[o.cand] && o.cand != chosen.cand)
        .max_by(|a, b| a.single_ops.total_cmp(&b.single_ops));
    let mut why = format!(
        "{} is recommended: {} of operations go to one shard, hottest shard {}",
        name(chosen),
        pct(chosen.single_ops),
        pct(-chosen.criteria[2])
    );
    if let Some(r) = runner_up {
        let margin = chosen.single_ops - r.single_ops;
        if margin.abs() < NOISE {
            why.push_str(&format!(
                "; within noise of {} ({}), chosen for {}",
                name(r),
                pct(r.single_ops),
                CRITERIA[2..].join(", then ")
            ));
        } else {
            why.push_str(&format!(
                "; the best other candidate, {}, sends {} to one shard ({:.1} points fewer)",
                name(r),
                pct(r.single_ops),
                margin * 100.0
            ));
        }
    }
    rec.reasons.insert(0, why);
    rec.chosen = Some((
        cands[chosen.cand].label.clone(),
        labels[chosen.scheme].clone(),
    ));
    rec
}

impl Recommendation {
    /// The report section.
    pub fn markdown(&self) -> String {
        let mut out = String::from("## What to shard on\n\n");
        match &self.chosen {
            Some((c, s)) => out.push_str(&format!("Recommended: **{c}** under **{s}**.\n\n")),
            None => out.push_str("No candidate is recommended.\n\n"),
        }
        for r in &self.reasons {
            out.push_str(&format!("- {r}\n"));
        }
        out.push_str(&format!(
            "\nCriteria, in order of weight: {}; shares within {} point of each other are ties.\n",
            CRITERIA.join(", "),
            NOISE * 100.0
        ));
        out
    }
}
