//! Registration of `range-dynamic`: ranges that split, merge and move while the trace
//! replays. It is not a fixed [`Partitioner`](crate::Partitioner): the replay simulates it
//! sequentially with [`crate::dynamic`] instead of building it.

use super::{SchemeKind, Simulation};
use crate::dynamic::params::{DynamicParams, ABOUT, NAME, PARAMS};
use crate::dynamic::simulate_with;
use crate::AnalysisError;

/// The registry entry; `build` checks the parameters and explains that the scheme is simulated.
pub const KIND: SchemeKind = SchemeKind {
    name: NAME,
    about: ABOUT,
    system: |_| None,
    params: PARAMS,
    needs_warmup: |_| false,
    build: |spec, _| {
        DynamicParams::parse(spec)?;
        Err(AnalysisError::Config(format!(
            "'{spec}' changes its ranges as events replay; it is simulated by the replay, not built as a fixed layout"
        )))
    },
    simulation: Some(Simulation {
        check: |spec| Ok(DynamicParams::parse(spec).map(drop)?),
        run: |spec, opts, source| simulate_with(&DynamicParams::parse(spec)?, opts, source),
    }),
};
