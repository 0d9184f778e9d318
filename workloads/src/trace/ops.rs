//! Operation names as traces write them, read loosely: `get`, `GET`, `gets`, `read`,
//! `GET_LEASE` and `getChunkData.Permanent` are all gets. `--op-map` names the rest.
//!
//! A name is matched, ignoring case, first against `--op-map`, then against the aliases
//! below, then by its leading word (the letters before the first non-letter or the first
//! lower-to-upper case change: `GET_LEASE` -> `GET`, `putChunk` -> `put`).

use crate::Op;

/// Aliases of each operation, lowercase.
const ALIASES: [(Op, &[&str]); 4] = [
    (Op::Get, &["get", "gets", "read", "r", "lookup"]),
    (
        Op::Put,
        &[
            "put",
            "set",
            "write",
            "w",
            "update",
            "insert",
            "add",
            "replace",
            "cas",
            "append",
            "prepend",
            "incr",
            "decr",
            "upsert",
            "rmw",
            "readmodifywrite",
        ],
    ),
    (Op::Delete, &["delete", "del", "remove"]),
    (Op::Scan, &["scan"]),
];

/// The operation names a trace may use, beyond the aliases (`--op-map 28=get,2a=put`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpMap {
    entries: Vec<(Vec<u8>, Op)>,
}

impl OpMap {
    /// Parses `name=op[,name=op...]` where op is get, put, delete or scan.
    pub fn parse(text: &str) -> Result<OpMap, String> {
        let mut entries = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, op) = item
                .split_once('=')
                .ok_or_else(|| format!("--op-map entry '{item}' must be written NAME=OP"))?;
            let op = Op::from_name(&op.trim().to_ascii_lowercase()).ok_or_else(|| {
                format!(
                    "--op-map entry '{item}': '{}' is not get, put, delete or scan",
                    op.trim()
                )
            })?;
            let name = name.trim();
            if name.is_empty() {
                return Err(format!("--op-map entry '{item}' has no name before '='"));
            }
            entries.push((name.as_bytes().to_ascii_lowercase(), op));
        }
        Ok(OpMap { entries })
    }

    /// True when no name is mapped.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The operation `text` names: the map first, then the aliases, then the leading word.
    pub fn op_of(&self, text: &[u8]) -> Option<Op> {
        let text = text.trim_ascii();
        if let Some((_, op)) = self
            .entries
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(text))
        {
            return Some(*op);
        }
        alias(text).or_else(|| alias(leading_word(text)))
    }

    /// The end of a message about an unknown op.
    pub fn help(&self) -> String {
        let mut text = String::from(
            "known ops: get (gets, read), put (set, write, update, insert, add, cas, ...), \
             delete, scan",
        );
        if !self.is_empty() {
            let mapped: Vec<String> = self
                .entries
                .iter()
                .map(|(n, op)| format!("{}={}", String::from_utf8_lossy(n), op.name()))
                .collect();
            text.push_str(&format!(", and from --op-map: {}", mapped.join(",")));
        } else {
            text.push_str("; name others with --op-map NAME=OP");
        }
        text
    }
}

fn alias(word: &[u8]) -> Option<Op> {
    if word.is_empty() {
        return None;
    }
    ALIASES
        .iter()
        .find(|(_, names)| {
            names
                .iter()
                .any(|n| n.as_bytes().eq_ignore_ascii_case(word))
        })
        .map(|(op, _)| *op)
}

/// The letters before the first non-letter or the first lower-to-upper case change.
fn leading_word(text: &[u8]) -> &[u8] {
    let mut end = 0;
    while end < text.len() && text[end].is_ascii_alphabetic() {
        if end > 0 && text[end].is_ascii_uppercase() && text[end - 1].is_ascii_lowercase() {
            break;
        }
        end += 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_real_traces_read_loosely() {
        let map = OpMap::default();
        for (name, op) in [
            ("get", Op::Get),
            ("GET", Op::Get),
            ("gets", Op::Get),
            ("Read", Op::Get),
            ("GET_LEASE", Op::Get),
            ("getChunkData.NotInitialized", Op::Get),
            ("set", Op::Put),
            ("SET_LEASE", Op::Put),
            ("putChunk.Permanent", Op::Put),
            ("cas", Op::Put),
            ("Write", Op::Put),
            ("DELETE", Op::Delete),
            ("scan", Op::Scan),
        ] {
            assert_eq!(map.op_of(name.as_bytes()), Some(op), "{name}");
        }
        for unknown in ["", "28", "fetch", "getaway", "x"] {
            assert_eq!(map.op_of(unknown.as_bytes()), None, "{unknown}");
        }
    }

    #[test]
    fn the_op_map_comes_first() {
        let map = OpMap::parse("28=get, 2A=put,get=delete").unwrap();
        assert_eq!(map.op_of(b"28"), Some(Op::Get));
        assert_eq!(map.op_of(b"2a"), Some(Op::Put));
        assert_eq!(map.op_of(b"GET"), Some(Op::Delete));
        assert!(map.help().contains("28=get"));
    }

    #[test]
    fn bad_op_maps_say_what_is_wrong() {
        assert!(OpMap::parse("28").unwrap_err().contains("NAME=OP"));
        assert!(OpMap::parse("28=fetch")
            .unwrap_err()
            .contains("not get, put"));
        assert!(OpMap::parse("=get").unwrap_err().contains("no name"));
    }
}
