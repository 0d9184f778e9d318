//! The figures of a scenario run ([`METRICS`]).

use crate::value::{MetricDef, MetricId};

/// `throttled_share`: Node requests that found no token in their shard's bucket.
pub const THROTTLED_SHARE: MetricId = MetricId("throttled_share");
/// `unavailable_share`: Events none of whose key's replicas was up.
pub const UNAVAILABLE_SHARE: MetricId = MetricId("unavailable_share");
/// `moved_keys`: Keys moved by the scenario's adds, drains and weight changes.
pub const MOVED_KEYS: MetricId = MetricId("moved_keys");
/// `moved_bytes`: Their bytes: each key's length plus the size of its last event that carried one.
pub const MOVED_BYTES: MetricId = MetricId("moved_bytes");
/// `redundant_moves`: Moves cancelled by cycles in the graph of moves between shards.
pub const REDUNDANT_MOVES: MetricId = MetricId("redundant_moves");
/// `move_secs`: The longest time the moves of one event took under --move-rate.
pub const MOVE_SECS: MetricId = MetricId("move_secs");
/// `converge_secs`: The longest time after an event until the hottest node share of every later window.
pub const CONVERGE_SECS: MetricId = MetricId("converge_secs");
/// `under_replicated_key_secs`: Keys seen with at least one replica on a failed shard, times the seconds they stay so.
pub const UNDER_REPLICATED_KEY_SECS: MetricId = MetricId("under_replicated_key_secs");
/// `refused_events`: Scenario events the scheme's own rule refused.
pub const REFUSED_EVENTS: MetricId = MetricId("refused_events");
/// `thrash`: How much data went back and forth.
pub const THRASH: MetricId = MetricId("thrash");
/// `overcommit`: The busiest node against the best possible.
pub const OVERCOMMIT: MetricId = MetricId("overcommit");

/// The figures of a scenario run, in `summary.csv` beside every scheme's.
pub static METRICS: &[MetricDef] = &[
    MetricDef {
        name: THROTTLED_SHARE.0,
        unit: "share",
        definition: "Node requests that found no token in their shard's bucket (--throttle) / all node requests; empty without --throttle.",
    },
    MetricDef {
        name: UNAVAILABLE_SHARE.0,
        unit: "share",
        definition: "Events none of whose key's replicas was up (failed shards) / all events.",
    },
    MetricDef {
        name: MOVED_KEYS.0,
        unit: "keys",
        definition: "Keys moved by the scenario's adds, drains and weight changes (each move of a key counts).",
    },
    MetricDef {
        name: MOVED_BYTES.0,
        unit: "bytes",
        definition: "Their bytes: each key's length plus the size of its last event that carried one.",
    },
    MetricDef {
        name: REDUNDANT_MOVES.0,
        unit: "keys",
        definition: "Moves cancelled by cycles in the graph of moves between shards (as pd-simulator counts them): data that went back or round.",
    },
    MetricDef {
        name: MOVE_SECS.0,
        unit: "s",
        definition: "The longest time the moves of one event took under --move-rate (0 without); empty when the moves of an event were not done by the end of the trace (events.csv: keys_left).",
    },
    MetricDef {
        name: CONVERGE_SECS.0,
        unit: "s",
        definition: "The longest time after an event until the hottest node share of every later window (up to the next event) stays within a band of its settled value (the mean of the last quarter of those windows): max(0.02, 10% of it, 3 binomial standard deviations of a share of the window's requests); resolution one window.",
    },
    MetricDef {
        name: UNDER_REPLICATED_KEY_SECS.0,
        unit: "key x s",
        definition: "Keys seen with at least one replica on a failed shard, times the seconds they stay so (counted at each event).",
    },
    MetricDef {
        name: REFUSED_EVENTS.0,
        unit: "events",
        definition: "Scenario events the scheme's own rule refused (events.csv outcome 'refused: ...'; jump removes only its last bucket): nothing changed at them.",
    },
    MetricDef {
        name: THRASH.0,
        unit: "ratio",
        definition: "How much data went back and forth (CockroachDB asim's thrashing): per node, the series of keys seen that it holds at each window end; the largest trend-discounting total variation of a node's series, tdtv(up, down) = a (up + down) + (1 - a) min(up, down) with a = (min / max)^0.8 of its summed upward and downward steps, divided by the range of every node's holdings (1 when constant). 0 when holdings only grow or only shrink; 2 for data that swept that range once and came back.",
    },
    MetricDef {
        name: OVERCOMMIT.0,
        unit: "ratio",
        definition: "The busiest node against the best possible (as Scylla's tablet load-balancing test judges its own), after the last event (the whole run without events): the busiest node's requests / max(requests / nodes up, the hottest key's point requests); 1 is the best any placement could do. Empty when nothing was served then.",
    },
];
