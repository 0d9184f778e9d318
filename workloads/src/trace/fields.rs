//! The fields of one delimited record, as the decoders read them: a csv crate
//! [`ByteRecord`] or a record split in place ([`super::plain_records`]).

use ::csv::ByteRecord;

/// The fields of one record, as the decoders read them.
pub(crate) trait Fields {
    /// The field at `i` (0-based), if the record has that many.
    fn get(&self, i: usize) -> Option<&[u8]>;
}

impl Fields for ByteRecord {
    fn get(&self, i: usize) -> Option<&[u8]> {
        ByteRecord::get(self, i)
    }
}
