//! Candidate shard keys (`tenant`, `tenant,user`, `hashed(user)`) and the order-preserving
//! byte encoding of their values.

use schemes::pinned_hash::hash64;

use crate::error::KeysError;

/// One column of a candidate key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Index of the column in the trace's header.
    pub col: usize,
    /// True for `hashed(c)`: the component is the 8-byte placement hash of the value.
    pub hashed: bool,
}

/// A candidate shard key: one column, a compound of columns in order, or hashed columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The candidate as written, normalised (`tenant,hashed(user)`).
    pub label: String,
    /// Its columns in key order.
    pub parts: Vec<Part>,
}

/// Parses `--candidates`: candidates separated by `;`, each a comma-separated list of columns
/// or `hashed(column)`, checked against the trace's data columns (`columns`). An unknown
/// column is a usage error naming it.
pub fn parse_candidates(text: &str, columns: &[String]) -> Result<Vec<Candidate>, KeysError> {
    let mut out: Vec<Candidate> = Vec::new();
    for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let mut parts = Vec::new();
        let mut names = Vec::new();
        for raw in item.split(',').map(str::trim) {
            let (name, hashed) = match raw.strip_prefix("hashed(") {
                Some(rest) => match rest.strip_suffix(')') {
                    Some(inner) => (inner.trim(), true),
                    None => {
                        return Err(KeysError::Usage(format!(
                            "--candidates: '{raw}' lacks its closing ')'"
                        )))
                    }
                },
                None => (raw, false),
            };
            if name.is_empty() {
                return Err(KeysError::Usage(format!(
                    "--candidates: candidate '{item}' has an empty column name"
                )));
            }
            let col = columns.iter().position(|c| c == name).ok_or_else(|| {
                KeysError::Usage(format!(
                    "--candidates: unknown column '{name}' in candidate '{item}'; the trace's \
                     key columns are: {}",
                    columns.join(", ")
                ))
            })?;
            if parts.iter().any(|p: &Part| p.col == col) {
                return Err(KeysError::Usage(format!(
                    "--candidates: column '{name}' appears twice in candidate '{item}'"
                )));
            }
            parts.push(Part { col, hashed });
            names.push(if hashed {
                format!("hashed({name})")
            } else {
                name.to_string()
            });
        }
        let label = names.join(",");
        if out.iter().any(|c| c.label == label) {
            return Err(KeysError::Usage(format!(
                "--candidates: candidate '{label}' is given twice"
            )));
        }
        out.push(Candidate { label, parts });
    }
    if out.is_empty() {
        return Err(KeysError::Usage(
            "--candidates is empty; give e.g. 'tenant; tenant,user; hashed(user)'".into(),
        ));
    }
    Ok(out)
}

/// How a column's cells are encoded, fixed by its first non-empty cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    /// Decimal signed 64-bit integers: 8 big-endian bytes with the sign bit flipped, so that
    /// byte order is numeric order.
    Int,
    /// Any other text (strings, ISO timestamps): its bytes with each 0x00 written 0x00 0xFF,
    /// then the terminator 0x00 0x01, so that byte order of compounds is value order.
    Str,
}

/// Appends the order-preserving encoding of `cell` as `ty` to `out`; `None` when `cell` is
/// not of that type.
pub fn encode(ty: ColType, cell: &str, out: &mut Vec<u8>) -> Option<()> {
    match ty {
        ColType::Int => {
            let v: i64 = cell.parse().ok()?;
            out.extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes());
        }
        ColType::Str => {
            for &b in cell.as_bytes() {
                out.push(b);
                if b == 0 {
                    out.push(0xFF);
                }
            }
            out.extend_from_slice(&[0, 1]);
        }
    }
    Some(())
}

/// The component of a `hashed(c)` part for an encoded value: `hash64` of it, big-endian.
pub fn hashed_component(encoded: &[u8]) -> [u8; 8] {
    hash64(encoded).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<String> {
        ["tenant", "user", "ts"].map(String::from).to_vec()
    }

    #[test]
    fn candidates_parse_with_hashed_parts_and_normalised_labels() {
        let c = parse_candidates(" tenant ; tenant, hashed( user ) ;ts", &cols()).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c[1].label, "tenant,hashed(user)");
        assert_eq!(
            c[1].parts,
            [
                Part {
                    col: 0,
                    hashed: false
                },
                Part {
                    col: 1,
                    hashed: true
                }
            ]
        );
    }

    #[test]
    fn an_unknown_column_is_a_usage_error_naming_it() {
        let err = parse_candidates("tenant; region", &cols()).unwrap_err();
        assert!(
            matches!(&err, KeysError::Usage(m) if m.contains("'region'")),
            "{err}"
        );
    }

    #[test]
    fn integer_and_string_encodings_keep_value_order() {
        let enc = |ty, s: &str| {
            let mut v = Vec::new();
            encode(ty, s, &mut v).unwrap();
            v
        };
        assert!(enc(ColType::Int, "-5") < enc(ColType::Int, "3"));
        assert!(enc(ColType::Int, "3") < enc(ColType::Int, "10"));
        // "ab" < "abc" and a compound (s, x) keeps s's order whatever follows.
        let mut ab = enc(ColType::Str, "ab");
        ab.extend(enc(ColType::Int, "999"));
        assert!(ab < enc(ColType::Str, "abc"));
        assert_eq!(encode(ColType::Int, "x", &mut Vec::new()), None);
    }
}
