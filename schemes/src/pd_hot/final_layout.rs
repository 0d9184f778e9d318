//! A `pd-hot` run's regions at its end as a fixed layout ([`FinalRegions`]), resized by the
//! scheduler's rule ([`super::scheduler::resize`]) on the run's requests per region: growth
//! adds empty stores that the scheduler fills, shrinking moves the removed stores' regions
//! to the coolest kept stores first. Only the keys of the regions moved move.

use serde::{Deserialize, Serialize};

use super::params::PdHotParams;
use super::scheduler::resize;
use crate::changing::{decode_state, encode_state};
use crate::range::RangePartitioner;
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// What a run saves of its regions: their starts, stores and requests.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SavedRegions {
    /// The scheme's label.
    pub label: String,
    /// Its parameters (the scheduler's rule).
    pub params: PdHotParams,
    /// Stores.
    pub stores: u32,
    /// The start key of every region, in key order (the first is the empty key).
    pub starts: Vec<Vec<u8>>,
    /// The store of every region.
    pub owners: Vec<u32>,
    /// The requests of every region over the run.
    pub requests: Vec<u64>,
}

impl SavedRegions {
    /// The regions as the bytes of a changing layout's final state.
    pub fn state(&self) -> Result<Vec<u8>, AnalysisError> {
        encode_state(self)
    }
}

/// The regions on their stores, with the rule that resizes them.
#[derive(Clone, Debug)]
pub struct FinalRegions {
    saved: SavedRegions,
    ranges: RangePartitioner,
}

impl FinalRegions {
    /// The layout of `saved`, checked: starts from the empty key, strictly increasing, one
    /// store (below `stores`) and one request count per region.
    pub fn new(saved: SavedRegions) -> Result<FinalRegions, AnalysisError> {
        if saved.requests.len() != saved.owners.len() {
            return Err(AnalysisError::Config(format!(
                "the saved regions of '{}' have {} request counts for {} regions",
                saved.label,
                saved.requests.len(),
                saved.owners.len()
            )));
        }
        let ranges = RangePartitioner::with_shard_count(
            saved.label.clone(),
            saved.stores,
            saved.starts.clone(),
            saved.owners.clone(),
        )?;
        Ok(FinalRegions { saved, ranges })
    }

    /// The layout [`SavedRegions::state`] saved in `bytes`, checked as [`FinalRegions::new`].
    pub fn from_state(bytes: &[u8]) -> Result<FinalRegions, AnalysisError> {
        FinalRegions::new(decode_state(bytes)?)
    }

    /// The store of every region, in key order.
    pub fn owners(&self) -> &[u32] {
        &self.saved.owners
    }
}

impl Partitioner for FinalRegions {
    fn label(&self) -> &str {
        &self.saved.label
    }

    fn shard_count(&self) -> u32 {
        self.saved.stores
    }

    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.ranges.shard_of(key)
    }

    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        self.ranges.scan_shards(start, end, out);
    }

    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        crate::kind::check_shard_count(shards)?;
        let s = &self.saved;
        let owners = resize(&s.owners, &s.requests, shards, &s.params.rule);
        Ok(Box::new(FinalRegions::new(SavedRegions {
            stores: shards,
            owners,
            ..s.clone()
        })?))
    }
}
