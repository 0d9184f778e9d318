//! Keys: byte strings compared as bytes; integers encoded big-endian so that byte order is
//! numeric order.

use std::fmt::Write as _;

/// How the key text of a trace is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyType {
    /// The text's bytes are the key.
    #[default]
    Bytes,
    /// Decimal unsigned integers, stored as 8 big-endian bytes.
    U64,
}

impl KeyType {
    /// Parses `bytes` or `u64`.
    pub fn from_name(name: &str) -> Option<KeyType> {
        match name {
            "bytes" => Some(KeyType::Bytes),
            "u64" => Some(KeyType::U64),
            _ => None,
        }
    }

    /// The name `from_name` parses: `bytes` or `u64`.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::Bytes => "bytes",
            KeyType::U64 => "u64",
        }
    }

    /// Appends the key that `text` denotes to `out`; on failure says what was expected.
    pub fn parse_into(self, text: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        match self {
            KeyType::Bytes => {
                if text.is_empty() {
                    return Err("the key is empty".into());
                }
                out.extend_from_slice(text);
            }
            KeyType::U64 => {
                let n = parse_u64(text).ok_or_else(|| {
                    format!(
                        "'{}' is not a decimal integer key (--key-type u64 expects 0..=18446744073709551615)",
                        String::from_utf8_lossy(text)
                    )
                })?;
                out.extend_from_slice(&encode_u64(n));
            }
        }
        Ok(())
    }

    /// Renders a key for people: the decimal number for 8-byte `u64` keys, the text for
    /// printable byte keys, and hex (`0x...`) otherwise.
    pub fn display(self, key: &[u8]) -> String {
        if self == KeyType::U64 {
            if let Some(n) = decode_u64(key) {
                return n.to_string();
            }
        }
        display_bytes(key)
    }

    /// [`KeyType::parse_into`] for a key as a trace writes it (a field, a line): integer keys
    /// may be padded with spaces; byte keys are taken exactly as written.
    pub fn parse_written(self, text: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        match self {
            KeyType::U64 => self.parse_into(text.trim_ascii(), out),
            KeyType::Bytes => self.parse_into(text, out),
        }
    }

    /// [`KeyType::display`] cut to at most `max` characters for a terminal line: a longer
    /// key shows its first `max` characters and its length (`...(1048576 bytes)`).
    pub fn display_short(self, key: &[u8], max: usize) -> String {
        let shown = self.display(key);
        match shown.char_indices().nth(max) {
            Some((cut, _)) => format!("{}...({} bytes)", &shown[..cut], key.len()),
            None => shown,
        }
    }

    /// The bytes a text-keyed system receives for `key`: the decimal digits of an 8-byte
    /// `u64` key (as a client sends an integer key to Redis, or an integer as an
    /// Elasticsearch `_id`), written into `digits`; the key itself otherwise.
    pub fn as_text<'a>(self, key: &'a [u8], digits: &'a mut [u8; 20]) -> &'a [u8] {
        let Some(mut n) = decode_u64(key).filter(|_| self == KeyType::U64) else {
            return key;
        };
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                return &digits[start..];
            }
        }
    }
}

/// Renders printable ASCII as text and anything else as `0x` followed by hex.
pub fn display_bytes(key: &[u8]) -> String {
    if !key.is_empty() && key.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        String::from_utf8_lossy(key).into_owned()
    } else {
        let mut s = String::with_capacity(2 + key.len() * 2);
        s.push_str("0x");
        for b in key {
            let _ = write!(s, "{b:02x}");
        }
        s
    }
}

/// Parses a decimal `u64` with no sign, spaces or overflow.
///
/// Hand-written rather than `str::parse` (which needs UTF-8 text and accepts a `+`): eight
/// digits at a time as one little-endian word (checked and combined with a few multiplies),
/// so the 13- to 20-digit numbers of csv traces cost three or four steps instead of one
/// checked multiply per digit.
#[inline]
pub fn parse_u64(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 20 {
        return None;
    }
    let mut n: u64 = 0;
    let mut rest = text;
    // At most 16 digits here, so `n` stays below 10^16 and cannot overflow.
    while rest.len() >= 8 && (text.len() - rest.len()) + 8 <= 16 {
        let (word, tail) = rest.split_at(8);
        n = n * 100_000_000 + eight_digits(word.try_into().ok()?)?;
        rest = tail;
    }
    for &b in rest {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// The value of eight ASCII digits, or `None` when one is not a digit.
#[inline]
fn eight_digits(bytes: [u8; 8]) -> Option<u64> {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let word = u64::from_le_bytes(bytes);
    // Every byte is 0x30..=0x39: its high nibble is 3, and adding 6 keeps it 3.
    if word & HIGH != ZEROS || word.wrapping_add(0x0606_0606_0606_0606) & HIGH != ZEROS {
        return None;
    }
    // The first digit is the lowest byte: pairs, then quads, then the whole.
    let digits = word - ZEROS;
    let pairs = (digits * 10 + (digits >> 8)) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs.wrapping_mul(1 + (100 << 16)) >> 16) & 0x0000_ffff_0000_ffff;
    Some(quads.wrapping_mul(1 + (10_000 << 32)) >> 32)
}

/// The 8-byte big-endian key of an integer.
#[inline]
pub fn encode_u64(n: u64) -> [u8; 8] {
    n.to_be_bytes()
}

/// The integer of an 8-byte key, or `None` for keys of another length.
#[inline]
pub fn decode_u64(key: &[u8]) -> Option<u64> {
    <[u8; 8]>::try_from(key).ok().map(u64::from_be_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_long_key_is_cut_for_a_terminal_line_with_its_length() {
        let long = vec![b'a'; 1 << 20];
        assert_eq!(
            KeyType::Bytes.display_short(&long, 5),
            "aaaaa...(1048576 bytes)"
        );
        assert_eq!(KeyType::Bytes.display_short(b"abcde", 5), "abcde");
        assert_eq!(
            KeyType::U64.display_short(&encode_u64(123_456), 3),
            "123...(8 bytes)"
        );
        assert_eq!(KeyType::Bytes.display_short(&[0, 1], 40), "0x0001");
    }

    proptest! {
        #[test]
        fn byte_order_of_encoded_integers_is_numeric_order(a: u64, b: u64) {
            prop_assert_eq!(a.cmp(&b), encode_u64(a).cmp(&encode_u64(b)));
        }

        #[test]
        fn a_u64_key_as_text_is_its_decimal_digits(n: u64) {
            let (key, decimal) = (encode_u64(n), n.to_string());
            let mut digits = [0; 20];
            prop_assert_eq!(KeyType::U64.as_text(&key, &mut digits), decimal.as_bytes());
            prop_assert_eq!(KeyType::Bytes.as_text(&key, &mut digits), &key[..]);
        }

        #[test]
        fn parse_u64_agrees_with_the_standard_parser(
            text in prop_oneof![
                "[0-9]{0,21}",
                "[0-9]{0,12}[^0-9][0-9]{0,12}",
                "[0-9/:]{1,20}",
                any::<u64>().prop_map(|n| n.to_string()),
                (u64::MAX - 1000..=u64::MAX).prop_map(|n| n.to_string()),
                (0u128..2000).prop_map(|n| (u128::from(u64::MAX) + n).to_string()),
                Just("000000000000000000001".to_string()),
                Just("00000000000000000001".to_string()),
            ]
        ) {
            let expected = if text.bytes().all(|b| b.is_ascii_digit()) && text.len() <= 20 {
                text.parse::<u64>().ok()
            } else {
                None
            };
            prop_assert_eq!(parse_u64(text.as_bytes()), expected, "{:?}", text);
        }

        #[test]
        fn decimal_keys_round_trip(n: u64) {
            let mut out = Vec::new();
            KeyType::U64.parse_into(n.to_string().as_bytes(), &mut out).unwrap();
            prop_assert_eq!(decode_u64(&out), Some(n));
            prop_assert_eq!(KeyType::U64.display(&out), n.to_string());
        }
    }

    #[test]
    fn bad_integer_keys_are_refused_with_the_reason() {
        let mut out = Vec::new();
        for bad in ["", "-1", "1.5", "18446744073709551616", "12a"] {
            let err = KeyType::U64
                .parse_into(bad.as_bytes(), &mut out)
                .unwrap_err();
            assert!(
                err.contains("decimal integer") || err.contains("empty"),
                "{err}"
            );
        }
    }

    #[test]
    fn unprintable_keys_display_as_hex() {
        assert_eq!(display_bytes(b"user42"), "user42");
        assert_eq!(display_bytes(&[0, 255]), "0x00ff");
    }
}
