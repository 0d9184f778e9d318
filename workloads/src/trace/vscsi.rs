//! `vscsi`: VMware VSCSI block traces, version 1 (32-byte records
//! `u32 sn; u32 len; u32 nSG; u16 cmd; u16 ver; u64 lbn; u64 ts`) and version 2 (40-byte
//! records `u16 cmd; u16 ver; u32 sn; u32 len; u32 nSG; u64 lbn; u64 ts; u64 rt`), packed
//! little-endian; `ver >> 8` is the version. The version is read from the first record, as
//! libCacheSim does, and every record must carry the same one.
//!
//! A request covers the 512-byte blocks `[lbn, lbn + ceil(len / 512))`: one block is a point
//! request (a get for a SCSI read, a put for a write), more is a scan over block numbers.
//! Keys are block numbers as 64-bit integers. SCSI commands that neither read nor write are
//! invalid records (skip them with `--skip-invalid`).

use super::binary::{u16_at, u32_at, u64_at, BinEvent, RecordLayout};
use crate::Op;

/// Bytes per block.
pub const BLOCK_BYTES: u64 = 512;

/// Which record layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VscsiVersion {
    /// 32-byte records.
    V1,
    /// 40-byte records.
    V2,
}

impl VscsiVersion {
    /// The version of the record at the start of `head`, if it looks like VSCSI at all.
    pub fn detect(head: &[u8]) -> Option<VscsiVersion> {
        if head.len() >= 32 && u16_at(head, 14) >> 8 == 1 {
            Some(VscsiVersion::V1)
        } else if head.len() >= 40 && u16_at(head, 2) >> 8 == 2 {
            Some(VscsiVersion::V2)
        } else {
            None
        }
    }

    fn offsets(self) -> Offsets {
        match self {
            VscsiVersion::V1 => Offsets {
                size: 32,
                len: 4,
                cmd: 12,
                ver: 14,
                lbn: 16,
                ts: 24,
            },
            VscsiVersion::V2 => Offsets {
                size: 40,
                len: 8,
                cmd: 0,
                ver: 2,
                lbn: 16,
                ts: 24,
            },
        }
    }

    fn number(self) -> u16 {
        match self {
            VscsiVersion::V1 => 1,
            VscsiVersion::V2 => 2,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Offsets {
    size: usize,
    len: usize,
    cmd: usize,
    ver: usize,
    lbn: usize,
    ts: usize,
}

/// The operation of a SCSI command: reads (6, 10, 12, 16) are gets, writes are puts.
pub fn op_of_command(cmd: u16) -> Option<Op> {
    match cmd {
        0x08 | 0x28 | 0xa8 | 0x88 => Some(Op::Get),
        0x0a | 0x2a | 0xaa | 0x8a => Some(Op::Put),
        _ => None,
    }
}

/// A VSCSI record layout of one version.
pub(crate) struct Vscsi {
    version: VscsiVersion,
    at: Offsets,
}

impl Vscsi {
    pub(crate) fn new(version: VscsiVersion) -> Self {
        Vscsi {
            version,
            at: version.offsets(),
        }
    }
}

impl RecordLayout for Vscsi {
    fn name(&self) -> &'static str {
        match self.version {
            VscsiVersion::V1 => "vscsi v1",
            VscsiVersion::V2 => "vscsi v2",
        }
    }

    fn record_size(&self) -> usize {
        self.at.size
    }

    fn decode(&self, r: &[u8], out: &mut BinEvent) -> Result<(), String> {
        let at = self.at;
        let version = u16_at(r, at.ver) >> 8;
        if version != self.version.number() {
            return Err(format!(
                "the version field reads {version}, but the trace started as VSCSI version {}: \
                 the data is corrupt or not VSCSI",
                self.version.number()
            ));
        }
        let cmd = u16_at(r, at.cmd);
        let op = op_of_command(cmd)
            .ok_or_else(|| format!("SCSI command 0x{cmd:02x} neither reads nor writes blocks"))?;
        let lbn = u64_at(r, at.lbn);
        let blocks = u64::from(u32_at(r, at.len)).div_ceil(BLOCK_BYTES).max(1);
        let end = lbn
            .checked_add(blocks)
            .ok_or_else(|| format!("block {lbn} plus {blocks} blocks overflows 64 bits"))?;
        *out = BinEvent {
            // A multi-block read reads a range; a multi-block write writes every block of it.
            op: if blocks > 1 && op == Op::Get {
                Op::Scan
            } else {
                op
            },
            key: lbn,
            end,
            timestamp: Some(u64_at(r, at.ts)),
            size: Some(u32_at(r, at.len)),
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{self, TraceFormat, TraceOptions};
    use crate::{collect, EventChunk, KeyType};
    use std::path::Path;

    fn read(path: &Path, format: Option<TraceFormat>) -> EventChunk {
        let mut opts = TraceOptions::new(path, KeyType::Bytes);
        opts.format = format;
        collect(trace::open(&opts).unwrap().as_mut()).unwrap()
    }

    /// The v1 fixture rewritten as v2 records (the same fields at the v2 offsets).
    fn as_v2(v1: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(v1.len() / 32 * 40);
        for r in v1.chunks(32) {
            out.extend_from_slice(&r[12..14]); // cmd
            out.extend_from_slice(&0x0200u16.to_le_bytes()); // ver: 2 << 8
            out.extend_from_slice(&r[0..4]); // sn
            out.extend_from_slice(&r[4..8]); // len
            out.extend_from_slice(&r[8..12]); // nSG
            out.extend_from_slice(&r[16..24]); // lbn
            out.extend_from_slice(&r[24..32]); // ts
            out.extend_from_slice(&7u64.to_le_bytes()); // rt
        }
        out
    }

    #[test]
    fn version_2_records_read_as_the_same_events_as_version_1() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/traces/cloudPhysicsIO_2000.vscsi");
        let v1 = std::fs::read(&fixture).unwrap();
        assert_eq!(VscsiVersion::detect(&v1), Some(VscsiVersion::V1));
        let v2 = as_v2(&v1);
        assert_eq!(VscsiVersion::detect(&v2), Some(VscsiVersion::V2));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.vscsi");
        std::fs::write(&path, &v2).unwrap();
        let (a, b) = (read(&fixture, None), read(&path, None));
        assert_eq!(a.len(), 2000);
        assert!(a.iter().eq(b.iter()));
        // Unnamed, the version bytes alone say it is VSCSI.
        let unnamed = dir.path().join("blocks");
        std::fs::write(&unnamed, &v2).unwrap();
        assert_eq!(read(&unnamed, None).len(), 2000);
    }

    #[test]
    fn commands_and_versions_are_checked_per_record() {
        assert_eq!(op_of_command(0x28), Some(Op::Get));
        assert_eq!(op_of_command(0x8a), Some(Op::Put));
        assert_eq!(op_of_command(0x12), None);
        let layout = Vscsi::new(VscsiVersion::V1);
        let mut r = [0u8; 32];
        r[12] = 0x12;
        r[15] = 1;
        let mut out = BinEvent::default();
        let e = layout.decode(&r, &mut out).unwrap_err();
        assert!(
            e.contains("SCSI command 0x12 neither reads nor writes"),
            "{e}"
        );
        r[15] = 2;
        assert!(layout
            .decode(&r, &mut out)
            .unwrap_err()
            .contains("version field reads 2"));
        r[15] = 1;
        r[12] = 0x2a;
        r[4..8].copy_from_slice(&1024u32.to_le_bytes());
        r[16..24].copy_from_slice(&10u64.to_le_bytes());
        layout.decode(&r, &mut out).unwrap();
        assert_eq!(
            (out.op, out.key, out.end),
            (Op::Put, 10, 12),
            "a two-block write writes blocks 10 and 11"
        );
        r[12] = 0x28;
        layout.decode(&r, &mut out).unwrap();
        assert_eq!(
            (out.op, out.key, out.end),
            (Op::Scan, 10, 12),
            "a two-block read"
        );
    }
}
