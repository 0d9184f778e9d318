//! What a scenario asks of a layout at an event ([`Action`]): a leaf, so that the
//! changing-layout trait can take an action without importing the scenario that reads them.

/// What happens at a scenario event.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Action {
    /// This many shards are added, numbered after the last, by the scheme's growth rule.
    Add(u32),
    /// The shard's data moves out by the scheme's own removal rule (planned), paced.
    Drain(u32),
    /// The shard stops answering; reads and writes go to its surviving replicas.
    Fail(u32),
    /// A failed shard answers again, with its data.
    Recover(u32),
    /// The shard's weight becomes this (the scheme is placed again with the new weights).
    Weight(u32, f64),
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Add(k) => write!(f, "add {k}"),
            Action::Drain(s) => write!(f, "drain {s}"),
            Action::Fail(s) => write!(f, "fail {s}"),
            Action::Recover(s) => write!(f, "recover {s}"),
            Action::Weight(s, w) => write!(f, "weight {s} {w}"),
        }
    }
}
