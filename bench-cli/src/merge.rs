//! `shardlab merge PARTS... --out DIR`: checks that the partial results of `run --part I/K`
//! are the parts of one run, each once, and places each part's events in the whole trace.
//!
//! Combining the parts' metric state into the run directory needs the mergeable accumulators
//! of the metric registry (issue 13), which partial results do not carry yet: after its
//! checks, `merge` says so and writes nothing.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

use crate::part::{check_set, first_positions, PartialHeader};

/// Options of `shardlab merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The partial-result directories written by `run --part I/K --out DIR`, one per part.
    #[arg(value_name = "PART_DIR", required = true)]
    pub parts: Vec<PathBuf>,

    /// The run directory to write.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,

    /// Replace an existing run directory.
    #[arg(long)]
    pub force: bool,
}

/// Runs `shardlab merge`.
pub fn merge(args: &MergeArgs) -> Result<()> {
    let headers = args
        .parts
        .iter()
        .map(|dir| Ok((dir.clone(), PartialHeader::read(dir)?)))
        .collect::<Result<Vec<_>>>()?;
    let parts = check_set(headers)?;
    let firsts = first_positions(&parts);
    let events: u64 = parts.iter().map(PartialHeader::events).sum();
    eprintln!(
        "{} parts of one run check out: {events} events, parts starting at events {:?}",
        parts.len(),
        firsts
    );
    bail!(
        "cannot write '{}': partial results do not carry metric state yet (the mergeable \
         accumulators of the metric registry, issue 13); run the trace whole with `shardlab \
         run` meanwhile",
        args.out.display()
    )
}
