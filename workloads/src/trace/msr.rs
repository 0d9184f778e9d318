//! `msr`: the MSR Cambridge block traces (SNIA), headerless CSV
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` with the timestamp in
//! Windows filetime (100 ns units), `Type` `Read` or `Write`, offset and size in bytes.
//!
//! A request covers the bytes `[Offset, Offset + Size)` of its disk, cut into key units of
//! `--block-size` bytes (default 4096). The key of unit `b` of disk `d` is the 64-bit integer
//! `d * 2^48 + b`, stored big-endian: disk first, then offset, so that one disk's blocks are
//! adjacent and in order. A request within one unit is a get (read) or put (write); one that
//! spans several units is a scan `[first unit, last unit + 1)`. The host name is not part of
//! the key (each MSR file holds one host's disks).

use ::csv::ByteRecord;

use super::csv::shown;
use super::delimited::{Decoder, Scratch};
use super::fields::Fields;
use crate::key::{encode_u64, parse_u64};
use crate::Op;

/// The default key unit in bytes.
pub const DEFAULT_BLOCK_SIZE: u64 = 4096;

/// Bits of a key below the disk number.
pub const DISK_SHIFT: u32 = 48;

/// The key of byte unit `block` of disk `disk`.
pub fn key_of(disk: u64, block: u64) -> u64 {
    (disk << DISK_SHIFT) + block
}

/// Decodes MSR records.
#[derive(Clone)]
pub(crate) struct MsrDecoder {
    block_size: u64,
}

impl MsrDecoder {
    pub(crate) fn new(block_size: u64) -> Self {
        MsrDecoder {
            block_size: block_size.max(1),
        }
    }
}

fn number(record: &impl Fields, i: usize, name: &str) -> Result<u64, String> {
    let text = record.get(i).unwrap_or(b"").trim_ascii();
    parse_u64(text).ok_or_else(|| format!("{name} '{}' is not a whole number", shown(text)))
}

impl Decoder for MsrDecoder {
    fn start(&mut self, first: &ByteRecord, _is_header: bool) -> Result<(), String> {
        if first.len() < 6 {
            return Err(format!(
                "the first line has {} fields, but MSR records have 7 \
                 (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)",
                first.len()
            ));
        }
        Ok(())
    }

    fn decode(&mut self, record: &impl Fields, out: &mut Scratch) -> Result<(), String> {
        let timestamp = number(record, 0, "Timestamp")?;
        let disk = number(record, 2, "DiskNumber")?;
        if disk >= 1 << (64 - DISK_SHIFT) {
            return Err(format!("DiskNumber {disk} is above 65535"));
        }
        let kind = record.get(3).unwrap_or(b"").trim_ascii();
        let op = if kind.eq_ignore_ascii_case(b"read") {
            Op::Get
        } else if kind.eq_ignore_ascii_case(b"write") {
            Op::Put
        } else {
            return Err(format!("Type '{}' is neither Read nor Write", shown(kind)));
        };
        let offset = number(record, 4, "Offset")?;
        let size = number(record, 5, "Size")?;
        let first = offset / self.block_size;
        let end = offset
            .checked_add(size)
            .ok_or_else(|| format!("Offset {offset} plus Size {size} overflows 64 bits"))?
            .div_ceil(self.block_size)
            .max(first + 1);
        if end >= 1 << DISK_SHIFT {
            return Err(format!(
                "Offset {offset} is beyond the 2^48 key units a disk can have with --block-size {}",
                self.block_size
            ));
        }
        // A multi-unit read reads a range; a multi-unit write writes every unit of it.
        let ranged = end - first > 1;
        out.op = if ranged && op == Op::Get {
            Op::Scan
        } else {
            op
        };
        out.key.clear();
        out.key.extend_from_slice(&encode_u64(key_of(disk, first)));
        out.has_end = ranged;
        out.end.clear();
        out.end.extend_from_slice(&encode_u64(key_of(disk, end)));
        out.timestamp = Some(timestamp);
        out.size = u32::try_from(size).ok();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(line: &str, block: u64) -> Result<Scratch, String> {
        let record = ByteRecord::from(line.split(',').collect::<Vec<_>>());
        let mut out = Scratch::new();
        MsrDecoder::new(block)
            .decode(&record, &mut out)
            .map(|()| out)
    }

    #[test]
    fn requests_become_blocks_of_their_disk() {
        let s = decode("1,hm,2,Read,8192,4096,5", 4096).unwrap();
        assert_eq!(
            (s.op, s.key.as_slice(), s.has_end),
            (Op::Get, &encode_u64(key_of(2, 2))[..], false)
        );
        let s = decode("1,hm,2,Write,8000,200,5", 4096).unwrap();
        assert_eq!(
            (s.op, s.has_end),
            (Op::Put, true),
            "a write of bytes 8000..8200 writes units 1 and 2"
        );
        let read = decode("1,hm,2,Read,8000,200,5", 4096).unwrap();
        assert_eq!(read.op, Op::Scan, "a read of two units reads their range");
        assert_eq!(
            (s.key, s.end),
            (
                encode_u64(key_of(2, 1)).to_vec(),
                encode_u64(key_of(2, 3)).to_vec()
            )
        );
        assert_eq!(s.timestamp, Some(1));
        assert!(
            key_of(1, 0) > key_of(0, (1 << DISK_SHIFT) - 1),
            "disk first, then offset"
        );
    }

    #[test]
    fn bad_fields_say_what_is_wrong() {
        assert!(decode("1,hm,0,Trim,0,1,1", 4096)
            .unwrap_err()
            .contains("Type 'Trim' is neither Read nor Write"));
        assert!(decode("1,hm,70000,Read,0,1,1", 4096)
            .unwrap_err()
            .contains("above 65535"));
        assert!(decode("x,hm,0,Read,0,1,1", 4096)
            .unwrap_err()
            .contains("Timestamp 'x' is not a whole number"));
        assert!(decode("1,hm,0,Read,18446744073709551615,1,1", 4096)
            .unwrap_err()
            .contains("overflows"));
    }
}
