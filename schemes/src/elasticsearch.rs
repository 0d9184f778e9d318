//! Elasticsearch's document routing, bit-exact with Elasticsearch 7.x/8.x/9.x and OpenSearch,
//! which keeps the rule (`IndexRouting`, `OperationRouting`, `Murmur3HashFunction`,
//! `MetadataCreateIndexService.calculateNumRoutingShards`).
//!
//! - **Routing hash**: MurmurHash3 x86 32 (seed 0) of the routing value (the `_id`, or the
//!   custom `routing`) as UTF-16 code units in little-endian bytes. Keys are read as UTF-8
//!   text, as Elasticsearch receives ids in JSON; invalid UTF-8 becomes U+FFFD.
//! - **Shard**: `floorMod(hash, routing_num_shards) / (routing_num_shards / number_of_shards)`.
//! - **routing_num_shards**: by default what Elasticsearch 7+ computes at index creation,
//!   `N x 2^max(1, 10 - ceil(log2 N))`: the largest `N x 2^k <= 1024` (at least `2N`), so the
//!   index can be split by powers of two.
//! - **Growth** only through `_split` to a multiple `M` of `N` that divides
//!   routing_num_shards (a one-shard index splits to any count and gets a new
//!   routing_num_shards); **shrink** only through `_shrink` to a divisor of `N`, keeping
//!   routing_num_shards, so each target shard is the union of consecutive source shards.
//!   Other targets are refused with the allowed ones listed. A shard is never removed: a lost
//!   primary is replaced by a replica, and the key keeps its shard.

use workloads::{KeyType, Spec};

use super::{check_shard_count, weights, BuildContext, SchemeKind};
use crate::murmur3::{murmur3_32_of_ascii_as_utf16, Murmur3};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// The most shards the default routing_num_shards plans for (`log2MaxNumShards = 10`).
const MAX_DEFAULT_ROUTING_SHARDS_LOG2: u32 = 10;

/// Registration of `elasticsearch`.
pub const KIND: SchemeKind = SchemeKind {
    name: "elasticsearch",
    about: "Elasticsearch 7+ (and OpenSearch) routing: murmur3(_id as UTF-16) over \
            routing_num_shards; growth only by _split to allowed multiples, shrink by _shrink",
    system: |_| Some("Elasticsearch 7+ / OpenSearch routing"),
    params: &[(
        "routing_shards",
        "index.number_of_routing_shards, a multiple of N (default: what Elasticsearch 7+ computes)",
    )],
    needs_warmup: |_| false,
    points: |_, shards| crate::Points::per_shard(shards),
    build,
    changing: None,
};

/// Builds `elasticsearch` for an index of `ctx.shards` primary shards.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let why = "documents are routed evenly over the shards";
    weights::refuse(ctx, &spec.to_string(), why)?;
    let index = match spec.get("routing_shards") {
        None => ElasticsearchPartitioner::new(spec.to_string(), ctx.shards)?,
        Some(_) => {
            let r = spec.u64_at_least("routing_shards", 1, 1)?;
            let r = u32::try_from(r)
                .ok()
                .filter(|&r| r <= i32::MAX as u32)
                .ok_or_else(|| spec.error(format!("routing_shards={r} is too large")))?;
            ElasticsearchPartitioner::with_routing_shards(spec.to_string(), ctx.shards, r)
                .map_err(|e| spec.error(e.to_string()))?
        }
    };
    Ok(Box::new(index.with_key_type(ctx.key_type)))
}

/// The routing hash of `routing` (`Murmur3HashFunction.hash(String)`): MurmurHash3 x86 32,
/// seed 0, of its UTF-16 code units as little-endian bytes, as a signed 32-bit value. The
/// text is `routing` read as UTF-8 with U+FFFD for each invalid sequence, as
/// `String::from_utf8_lossy` reads it ([`lossy_utf16_windows`], without a copy of the text).
pub fn routing_hash(routing: &[u8]) -> i32 {
    if routing.is_ascii() {
        return murmur3_32_of_ascii_as_utf16(routing, 0) as i32;
    }
    let mut h = Murmur3::new(0);
    lossy_utf16_windows(routing, |units| h.units(units));
    h.finish() as i32
}

/// UTF-16 units given to `out` at a time by [`lossy_utf16_windows`].
const WINDOW: usize = 64;

/// Decodes `bytes` as `String::from_utf8_lossy` does (a valid sequence to its code point,
/// each maximal invalid subpart of a sequence to one U+FFFD) and gives the UTF-16 units to
/// `out`, about [`WINDOW`] at a time, through a buffer on the stack.
///
/// [`step`] reads 4 bytes: in place while 4 are left, then from a copy of the last 1 to 3
/// padded with zeros (never a continuation byte).
fn lossy_utf16_windows(bytes: &[u8], mut out: impl FnMut(&[u16])) {
    let mut units = [0u16; WINDOW + 8];
    let (mut n, mut i) = (0, 0);
    while i + 4 <= bytes.len() {
        let read;
        (n, read) = step(
            &mut units,
            n,
            [bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]],
        );
        i += read;
        if n >= WINDOW {
            out(&units[..n]);
            n = 0;
        }
    }
    let mut tail = [0u8; 6];
    for (t, &b) in tail.iter_mut().zip(&bytes[i..]) {
        *t = b;
    }
    let mut j = 0;
    while j < bytes.len() - i {
        let read;
        (n, read) = step(
            &mut units,
            n,
            [tail[j], tail[j + 1], tail[j + 2], tail[j + 3]],
        );
        j += read;
    }
    out(&units[..n]);
}

/// Decodes the sequence at the start of `quad` into `units` at `n`; the new `n` and the
/// bytes the sequence takes.
///
/// A byte whose next byte does not continue it (an ASCII byte, a byte that starts no
/// sequence, a first byte cut short) is one unit, itself or U+FFFD, chosen without a branch.
/// The one branch is on a first byte followed by a valid second one, rare in random binary
/// keys (about 5% of bytes) and regular in text; a decoder branching on each byte's kind
/// mispredicted about once per byte on binary keys, half ASCII and half not in no pattern
/// (random 8-byte keys: 89 ns a key, hash and shard included, against 40 here).
#[inline(always)]
fn step(units: &mut [u16; WINDOW + 8], n: usize, quad: [u8; 4]) -> (usize, usize) {
    let lead = LEADS[usize::from(quad[0])];
    let (lo, width) = (lead >> 8 & 0xFF, lead >> 16 & 0xFF);
    if u32::from(quad[1]).wrapping_sub(lo) < width {
        let (pair, count, read) = decode_sequence(quad);
        units[n..n + 2].copy_from_slice(&pair);
        return (n + count, read);
    }
    units[n] = if quad[0] < 0x80 {
        u16::from(quad[0])
    } else {
        0xFFFD
    };
    (n + 1, 1)
}

/// Per first byte of a sequence: its length (0 for a byte that starts none) in bits 0..8,
/// the smallest valid second byte in bits 8..16 and the number of valid second bytes in
/// bits 16..24 (Unicode's table of well-formed UTF-8: no overlong forms, surrogates or code
/// points above U+10FFFF), and the mask of the code point's bits in the first byte in bits
/// 24..32.
const LEADS: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        let (len, lo, hi, mask) = match b as u8 {
            0x00..=0x7F => (1, 1, 0, 0x7F),
            0xC2..=0xDF => (2, 0x80, 0xBF, 0x1F),
            0xE0 => (3, 0xA0, 0xBF, 0x0F),
            0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF, 0x0F),
            0xED => (3, 0x80, 0x9F, 0x0F),
            0xF0 => (4, 0x90, 0xBF, 0x07),
            0xF1..=0xF3 => (4, 0x80, 0xBF, 0x07),
            0xF4 => (4, 0x80, 0x8F, 0x07),
            _ => (0, 1, 0, 0),
        };
        table[b] = len | lo << 8 | (hi + 1 - lo) << 16 | mask << 24;
        b += 1;
    }
    table
};

/// The sequence at the start of `quad` as `from_utf8_lossy` reads it: its UTF-16 units (the
/// second one is used only for a code point above U+FFFF), how many units it gives and how
/// many bytes it takes (its valid prefix, at least the first byte).
#[inline(always)]
fn decode_sequence(quad: [u8; 4]) -> ([u16; 2], usize, usize) {
    let [b0, b1, b2, b3] = quad.map(u32::from);
    let lead = LEADS[b0 as usize];
    let (len, lo, width, mask) = (lead & 7, lead >> 8 & 0xFF, lead >> 16 & 0xFF, lead >> 24);
    let continues = |b: u32| b & 0xC0 == 0x80;
    let second = b1.wrapping_sub(lo) < width;
    let third = second & (len >= 3) & continues(b2);
    let fourth = third & (len == 4) & continues(b3);
    let read = 1 + usize::from(second) + usize::from(third) + usize::from(fourth);
    // The code point of a complete sequence of `len` bytes.
    let bits = (b0 & mask) << 18 | (b1 & 0x3F) << 12 | (b2 & 0x3F) << 6 | b3 & 0x3F;
    let code = bits >> (6 * (4 - len) % 32);
    let above = code.wrapping_sub(0x1_0000);
    let (pair, two) = if code > 0xFFFF {
        let high = 0xD800 | (above >> 10) as u16;
        ([high, 0xDC00 | (above & 0x3FF) as u16], true)
    } else {
        ([code as u16, 0], false)
    };
    // Selects on `complete`, not a match on it: the compiler kept a branch for the match.
    let complete = read as u32 == len;
    let first = if complete { pair[0] } else { 0xFFFD };
    let count = 1 + usize::from(complete & two);
    ([first, pair[1]], count, read)
}

/// The default `index.number_of_routing_shards` of an index created with `shards` primary
/// shards by Elasticsearch 7+ (`calculateNumRoutingShards`).
pub fn default_routing_shards(shards: u32) -> u32 {
    let log2_shards = u32::BITS - (shards - 1).leading_zeros();
    let splits = MAX_DEFAULT_ROUTING_SHARDS_LOG2
        .saturating_sub(log2_shards)
        .max(1);
    shards << splits
}

/// An index of N primary shards routed over routing_num_shards.
#[derive(Clone, Debug)]
pub struct ElasticsearchPartitioner {
    label: String,
    /// How keys become routing values: `u64` keys as their decimal digits.
    key_type: KeyType,
    shards: u32,
    routing_shards: u32,
}

impl ElasticsearchPartitioner {
    /// An index created with `shards` primary shards (at least 1) and the default
    /// routing_num_shards.
    pub fn new(label: impl Into<String>, shards: u32) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        if shards > i32::MAX as u32 / 2 {
            let message = format!("an index of {shards} shards is beyond Elasticsearch's range");
            return Err(AnalysisError::Config(message));
        }
        Self::with_routing_shards(label, shards, default_routing_shards(shards))
    }

    /// An index with an explicit routing_num_shards, which must be a multiple of `shards`.
    pub fn with_routing_shards(
        label: impl Into<String>,
        shards: u32,
        routing_shards: u32,
    ) -> Result<Self, AnalysisError> {
        check_shard_count(shards)?;
        if !routing_shards.is_multiple_of(shards) {
            let message = format!(
                "routing_num_shards {routing_shards} must be a multiple of the {shards} shards"
            );
            return Err(AnalysisError::Config(message));
        }
        Ok(ElasticsearchPartitioner {
            label: label.into(),
            key_type: KeyType::Bytes,
            shards,
            routing_shards,
        })
    }

    /// This index reading keys of `key_type`: a `u64` key is the `_id` of its decimal
    /// digits (the default, [`KeyType::Bytes`], reads the key's bytes as UTF-8 text).
    pub fn with_key_type(self, key_type: KeyType) -> Self {
        ElasticsearchPartitioner { key_type, ..self }
    }

    /// The routing hash of `key` as Elasticsearch receives it (see [`Self::with_key_type`]).
    #[inline]
    pub fn hash_of(&self, key: &[u8]) -> i32 {
        routing_hash(self.key_type.as_text(key, &mut [0; 20]))
    }

    /// The index's routing_num_shards.
    pub fn routing_shards(&self) -> u32 {
        self.routing_shards
    }

    /// The shard counts `_split` accepts: multiples of N above N that divide
    /// routing_num_shards (for a one-shard index: any count above 1, shown up to 1024).
    pub fn split_targets(&self) -> Vec<u32> {
        if self.shards == 1 {
            return (2..=1 << MAX_DEFAULT_ROUTING_SHARDS_LOG2).collect();
        }
        (2..=self.routing_shards / self.shards)
            .map(|f| f * self.shards)
            .filter(|t| self.routing_shards.is_multiple_of(*t))
            .collect()
    }

    /// The shard counts `_shrink` accepts: the divisors of N below N.
    pub fn shrink_targets(&self) -> Vec<u32> {
        (1..self.shards)
            .filter(|t| self.shards.is_multiple_of(*t))
            .collect()
    }

    /// The shard of a routing hash.
    #[inline]
    fn shard_of_hash(&self, hash: i32) -> ShardId {
        let routing_shard = i64::from(hash).rem_euclid(i64::from(self.routing_shards)) as u32;
        routing_shard / (self.routing_shards / self.shards)
    }
}

/// "a, b, c" with at most `max` values, then how many more there are.
fn list(values: &[u32], max: usize) -> String {
    let shown: Vec<String> = values.iter().take(max).map(u32::to_string).collect();
    match values.len().saturating_sub(max) {
        0 => shown.join(", "),
        more => format!("{}, ... ({more} more)", shown.join(", ")),
    }
}

impl Partitioner for ElasticsearchPartitioner {
    /// Another placement: every key's hash redrawn ([`crate::placement::SaltedKeys`]).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        Some(Box::new(crate::placement::SaltedKeys::new(self, salt)))
    }

    /// No structure: the shard is arithmetic on the routing hash.
    fn router_bytes(&self) -> Option<u64> {
        Some(0)
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.shards
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.shard_of_hash(self.hash_of(key))
    }

    /// Every shard: documents are hashed. An empty scan (`end <= start`) contacts only the
    /// owner of `start`, as the trait asks of every scheme.
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// `_split` to an allowed multiple, `_shrink` to a divisor; anything else is refused with
    /// the allowed counts ([`Partitioner::resize_refusal`]).
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        check_shard_count(shards)?;
        if let Some(why) = self.resize_refusal(shards) {
            return Err(AnalysisError::Config(why));
        }
        let index = if self.shards == 1 {
            // A one-shard index splits to any count and gets a new routing_num_shards.
            Self::new(self.label.clone(), shards)?
        } else {
            Self::with_routing_shards(self.label.clone(), shards, self.routing_shards)?
        };
        Ok(Box::new(index.with_key_type(self.key_type)))
    }

    /// Only `_split` to [`ElasticsearchPartitioner::split_targets`] and `_shrink` to
    /// [`ElasticsearchPartitioner::shrink_targets`] are possible.
    fn resize_refusal(&self, shards: u32) -> Option<String> {
        // The targets are listed only for the message: plan asks about many counts.
        let (allowed, what): (fn(&Self) -> Vec<u32>, _) = match shards.cmp(&self.shards) {
            std::cmp::Ordering::Equal => return None,
            std::cmp::Ordering::Greater if self.shards == 1 => return None,
            std::cmp::Ordering::Greater
                if shards.is_multiple_of(self.shards)
                    && self.routing_shards.is_multiple_of(shards) =>
            {
                return None
            }
            std::cmp::Ordering::Less if self.shards.is_multiple_of(shards) => return None,
            std::cmp::Ordering::Greater => (Self::split_targets, "_split"),
            std::cmp::Ordering::Less => (Self::shrink_targets, "_shrink"),
        };
        let allowed = allowed(self);
        let allowed = if allowed.is_empty() {
            "none".to_string()
        } else {
            list(&allowed, 20)
        };
        Some(format!(
            "scheme '{}': Elasticsearch cannot {what} an index of {} shards \
             (routing_num_shards {}) to {shards}; allowed targets: {allowed}",
            self.label, self.shards, self.routing_shards
        ))
    }

    /// Only the primary: a replica shard is a copy of the same shard on another node, outside
    /// the layout ([`Partitioner::replica_refusal`]).
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// Shards are the index's primary shards; a replica shard copies the same shard.
    fn replica_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Elasticsearch): a replica shard is a copy of the same shard placed on \
             another node, never another shard of the index, and shardlab's shards are the \
             primary shards, not nodes; plan with --replicas 1 (every copy of a shard holds its \
             documents and receives its writes; searches are spread over the copies)",
            self.label
        ))
    }

    /// Elasticsearch never removes a shard of an index (see the module).
    fn removal_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}' (Elasticsearch) never removes a shard of an index: a lost primary is \
             replaced by a replica and every document keeps its shard; only _shrink reduces \
             the shard count",
            self.label
        ))
    }

    /// The routing hash (signed, as Elasticsearch computes it).
    fn detail(&self, key: &[u8]) -> Option<String> {
        Some(self.hash_of(key).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The routing hash as the specification computes it: through `from_utf8_lossy`.
    fn reference_hash(bytes: &[u8]) -> i32 {
        let units: Vec<u8> = String::from_utf8_lossy(bytes)
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        crate::murmur3::murmur3_32(&units, 0) as i32
    }

    /// The units of [`lossy_utf16_windows`], checked against `from_utf8_lossy`'s.
    fn check_units(bytes: &[u8]) {
        let mut units = Vec::new();
        lossy_utf16_windows(bytes, |w| units.extend_from_slice(w));
        let expected: Vec<u16> = String::from_utf8_lossy(bytes).encode_utf16().collect();
        assert_eq!(units, expected, "{bytes:02x?}");
    }

    /// Pieces of UTF-8, valid and not, that the generated keys are made of.
    fn fragment() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            "[ -~]{1,9}".prop_map(String::into_bytes),
            any::<char>().prop_map(|c| c.to_string().into_bytes()),
            // A multi-byte character cut short.
            (any::<char>(), 1..3usize).prop_map(|(c, keep)| {
                let bytes = c.to_string().into_bytes();
                bytes[..keep.min(bytes.len() - 1).max(1)].to_vec()
            }),
            // Overlong forms, surrogates, beyond U+10FFFF, lone continuation bytes, bytes that
            // start nothing.
            prop::sample::select(vec![
                vec![0xC0, 0x80],
                vec![0xC1, 0xBF],
                vec![0xE0, 0x80, 0x80],
                vec![0xE0, 0x9F, 0xBF],
                vec![0xF0, 0x80, 0x80, 0x80],
                vec![0xF0, 0x8F, 0xBF, 0xBF],
                vec![0xED, 0xA0, 0x80],
                vec![0xED, 0xBF, 0xBF],
                vec![0xED, 0x9F, 0xBF],
                vec![0xF4, 0x90, 0x80, 0x80],
                vec![0xF4, 0x8F, 0xBF, 0xBF],
                vec![0xF5, 0x80, 0x80, 0x80],
                vec![0x80],
                vec![0xBF, 0xBF],
                vec![0xFF],
                vec![0xF0, 0x9F, 0x98, 0x80],
            ]),
        ]
    }

    proptest! {
        #[test]
        fn any_bytes_hash_as_their_lossy_text(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            prop_assert_eq!(routing_hash(&bytes), reference_hash(&bytes));
            check_units(&bytes);
        }

        #[test]
        fn ascii_ids_hash_as_their_text(text in "[ -~]{0,150}") {
            prop_assert_eq!(routing_hash(text.as_bytes()), reference_hash(text.as_bytes()));
            // The decoder (which ASCII ids skip) gives the same units.
            check_units(text.as_bytes());
        }

        #[test]
        fn mixed_text_and_invalid_sequences_hash_as_their_lossy_text(
            pieces in proptest::collection::vec(fragment(), 0..60)
        ) {
            let bytes = pieces.concat();
            prop_assert_eq!(routing_hash(&bytes), reference_hash(&bytes));
            check_units(&bytes);
        }
    }

    #[test]
    fn every_key_of_one_and_two_bytes_decodes_as_from_utf8_lossy() {
        for a in 0..=255u8 {
            check_units(&[a]);
            for b in 0..=255u8 {
                check_units(&[a, b]);
            }
        }
    }

    #[test]
    fn keys_of_the_boundary_bytes_decode_as_from_utf8_lossy() {
        // Every key of up to 4 bytes from the bytes where the kinds and ranges change.
        let edges = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    check_units(&[a, b, c]);
                    for &d in &edges {
                        check_units(&[a, b, c, d]);
                        check_units(&[0x41, a, b, c, d]);
                    }
                }
            }
        }
    }

    #[test]
    fn sequences_across_the_window_end_decode_whole() {
        // A 2-, 3- and 4-byte character, and one cut short, at every offset around the
        // WINDOW-th unit, where the buffer is handed out.
        for filler in [b'a', 0xFF] {
            for seq in [
                &[0xC3, 0xA9][..],
                &[0xE2, 0x82, 0xAC],
                &[0xF0, 0x9F, 0x98, 0x80],
                &[0xF0, 0x9F, 0x98],
            ] {
                for at in WINDOW - 4..WINDOW + 4 {
                    let mut key = vec![filler; at];
                    key.extend_from_slice(seq);
                    key.extend_from_slice(&[filler; 5]);
                    check_units(&key);
                    assert_eq!(routing_hash(&key), reference_hash(&key));
                }
            }
        }
    }

    #[test]
    fn the_routing_hash_gives_the_values_of_elasticsearchs_own_test() {
        // Murmur3HashFunctionTests.testKnownValues in Elasticsearch.
        let cases: [(&str, u32); 7] = [
            ("hell", 0x5a0cb7c3),
            ("hello", 0xd7c31989),
            ("hello w", 0x22ab2984),
            ("hello wo", 0xdf0ca123),
            ("hello wor", 0xe7744d61),
            ("The quick brown fox jumps over the lazy dog", 0xe07db09c),
            ("The quick brown fox jumps over the lazy cog", 0x4e63d2ad),
        ];
        for (text, expected) in cases {
            assert_eq!(routing_hash(text.as_bytes()), expected as i32, "{text}");
        }
    }

    #[test]
    fn default_routing_shards_follow_calculate_num_routing_shards() {
        let cases = [
            (1, 1024),
            (2, 1024),
            (3, 768),
            (5, 640),
            (6, 768),
            (10, 640),
            (512, 1024),
            (513, 1026),
            (1024, 2048),
            (2000, 4000),
        ];
        for (n, r) in cases {
            assert_eq!(default_routing_shards(n), r, "{n} shards");
        }
    }

    #[test]
    fn the_shard_is_floor_mod_over_the_routing_factor() {
        let index = ElasticsearchPartitioner::new("es", 5).unwrap();
        // 0xd7c31989 is negative as an int: floorMod keeps it in 0..640.
        let hash = 0xd7c31989_u32 as i32;
        let expected = (i64::from(hash).rem_euclid(640) / 128) as u32;
        assert_eq!(index.shard_of(b"hello"), expected);
        assert_eq!(index.detail(b"hello").unwrap(), hash.to_string());
    }

    #[test]
    fn split_and_shrink_keep_documents_on_the_matching_shards() {
        let five = ElasticsearchPartitioner::new("es", 5).unwrap();
        assert_eq!(five.split_targets(), [10, 20, 40, 80, 160, 320, 640]);
        let keys = KeyCounts::new();
        let ten = five.resized(10, &keys).unwrap();
        for i in 0..3000u32 {
            let key = format!("doc-{i}");
            // A split shard's documents come from source shard target / 2.
            assert_eq!(
                ten.shard_of(key.as_bytes()) / 2,
                five.shard_of(key.as_bytes())
            );
        }
        let back = ten.resized(5, &keys).unwrap();
        assert!(
            (0..500u32).all(|i| back.shard_of(&i.to_be_bytes()) == five.shard_of(&i.to_be_bytes()))
        );
        let err = five.resized(7, &keys).err().expect("refused").to_string();
        assert!(
            err.contains("cannot _split") && err.contains("10, 20, 40"),
            "{err}"
        );
        let err = ten.resized(3, &keys).err().expect("refused").to_string();
        assert!(
            err.contains("_shrink") && err.contains("allowed targets: 1, 2, 5"),
            "{err}"
        );
        // The refusal agrees with the listed targets for every count.
        for index in [&five, &ElasticsearchPartitioner::new("es", 12).unwrap()] {
            let (split, shrink) = (index.split_targets(), index.shrink_targets());
            for t in 1..=2000 {
                let allowed = t == index.shards || split.contains(&t) || shrink.contains(&t);
                assert_eq!(index.resize_refusal(t).is_none(), allowed, "{t}");
            }
        }
        let one = ElasticsearchPartitioner::new("es", 1).unwrap();
        assert!(one.resize_refusal(7).is_none());
        assert_eq!(one.resized(3, &keys).unwrap().shard_count(), 3);
        assert!(ElasticsearchPartitioner::with_routing_shards("es", 4, 6).is_err());
    }
}
