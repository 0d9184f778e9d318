//! `oracle-general`: libCacheSim's oracleGeneral binary format, packed little-endian 24-byte
//! records `u32 timestamp; u64 obj_id; u32 obj_size; i64 next_access_vtime`.
//!
//! Every record is a get of the 64-bit key `obj_id` (stored big-endian, so `--key-type u64`
//! semantics apply), with the timestamp (seconds in libCacheSim's traces) and the object size.
//! `next_access_vtime` (the position of the next request to the object, -1 for never) is what
//! Belady's algorithm needs; shardlab does not use it when reading and computes it when
//! writing (see [`super::write`]).

use super::binary::{u32_at, u64_at, BinEvent, RecordLayout};
use crate::Op;

/// Bytes per record.
pub const RECORD_BYTES: usize = 24;

/// The oracleGeneral record layout.
pub(crate) struct OracleGeneral;

impl RecordLayout for OracleGeneral {
    fn name(&self) -> &'static str {
        "oracle-general"
    }

    fn record_size(&self) -> usize {
        RECORD_BYTES
    }

    fn decode(&self, r: &[u8], out: &mut BinEvent) -> Result<(), String> {
        *out = BinEvent {
            op: Op::Get,
            key: u64_at(r, 4),
            end: 0,
            timestamp: Some(u32_at(r, 0).into()),
            size: Some(u32_at(r, 12)),
        };
        Ok(())
    }
}

/// Encodes one record.
pub fn encode(timestamp: u32, id: u64, size: u32, next_access: i64) -> [u8; RECORD_BYTES] {
    let mut r = [0u8; RECORD_BYTES];
    r[0..4].copy_from_slice(&timestamp.to_le_bytes());
    r[4..12].copy_from_slice(&id.to_le_bytes());
    r[12..16].copy_from_slice(&size.to_le_bytes());
    r[16..24].copy_from_slice(&next_access.to_le_bytes());
    r
}
