//! nginx's `hash $key consistent` (ngx_http_upstream_hash_module), bit-exact with nginx 1.22
//! (Debian `nginx`), checked against a running nginx proxying to loopback upstreams.
//!
//! - **Servers** come from `servers=FILE`: one upstream `server` address a line as written in
//!   the `upstream` block (`127.0.0.1:8081`, optionally followed by ` weight=W`); blank
//!   lines and `#` comments are skipped; shard i = the i-th server line. `--shards N` uses
//!   the first N servers.
//! - **Points**: the address is cut as nginx cuts it (the digits after the last `:` are the
//!   port; `unix:PATH` has none) and server `s` of weight `w` gets `160 x w` points:
//!   point j = CRC-32 of `host`, a `\0` byte, `port` and point j-1 as 4 little-endian bytes
//!   (0 for the first point). The points are sorted (stably, in server order) and a point
//!   shared by two servers keeps the first server's.
//! - **Key**: CRC-32 of the key's bytes; the owner is the first point at or after it,
//!   wrapping to the first. nginx sends an empty key round-robin: shardlab places it at
//!   hash 0 and its `detail` says `round-robin`.
//! - **Growth** adds the next server lines of FILE (nginx's rule: a `server` line added to
//!   the upstream); only keys that land on the new points move. **Removal** takes a server's
//!   line out; the others keep their points.

use std::path::Path;
use std::sync::Arc;

use crc::{Crc, CRC_32_ISO_HDLC};
use workloads::{KeyType, Spec};

use super::identities::{ByIdentity, Identities};
use super::weights::{self, Weights};
use super::{BuildContext, SchemeKind};
use crate::{AnalysisError, KeyCounts, Partitioner, ShardId, ShardSet};

/// nginx's `ngx_crc32`: the standard CRC-32.
const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// Points per unit of weight (`peer->weight * 160`).
const POINTS_PER_WEIGHT: u32 = 160;

/// The largest `weight=` shardlab takes (nginx has no smaller limit that matters here).
const MAX_WEIGHT: u32 = 1000;

/// Registration of `nginx-chash`.
pub const KIND: SchemeKind = SchemeKind {
    name: "nginx-chash",
    about: "nginx 1.22 `hash $key consistent` over the upstream servers of servers=FILE: 160 \
            crc32 points per weight unit; growth adds the next server lines",
    system: |_| Some("nginx 1.22 hash $key consistent"),
    params: &[(
        "servers",
        "FILE: one upstream server address a line (`host:port [weight=W]`), shard i = line i \
         (required)",
    )],
    needs_warmup: |_| false,
    points: |_, shards| {
        // At least 160 per server; the weights of the servers file are counted by `build`.
        crate::Points::times_shards(
            POINTS_PER_WEIGHT as u64,
            shards,
            "160 points x weight units",
            "fewer shards or smaller weights",
        )
    },
    build,
    changing: None,
};

/// One upstream server line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// The address as written (`host:port`), what nginx hashes.
    pub address: String,
    /// `weight=` (1 when not given).
    pub weight: u32,
}

/// Builds `nginx-chash` for the first `ctx.shards` servers of the file.
fn build(spec: &Spec, ctx: &BuildContext<'_>) -> Result<Box<dyn Partitioner>, AnalysisError> {
    let label = spec.to_string();
    let why = "nginx weights are written in the servers file (`host:port weight=W`)";
    weights::refuse(ctx, &label, why)?;
    let Some(path) = spec.get("servers") else {
        let message = "servers=FILE is required: one upstream server address a line \
                       (`host:port [weight=W]`)"
            .to_string();
        return Err(spec.error(message).into());
    };
    let servers = read_servers(Path::new(path))?;
    let ids = Identities::first(ctx.shards, Weights::equal())?;
    NginxChashPartitioner::new(label, ctx.key_type, Arc::new(servers), ids)
        .map(|p| Box::new(p) as Box<dyn Partitioner>)
}

/// Reads a servers file (see the module doc); errors name the file and the line.
pub fn read_servers(path: &Path) -> Result<Vec<Server>, AnalysisError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        AnalysisError::Config(format!(
            "cannot read servers file '{}': {e}",
            path.display()
        ))
    })?;
    parse_servers(&text).map_err(|(line, message)| AnalysisError::Boundaries {
        path: path.to_path_buf(),
        line,
        message,
    })
}

/// Parses the text of a servers file; an error is `(1-based line, message)`.
fn parse_servers(text: &str) -> Result<Vec<Server>, (usize, String)> {
    let mut servers: Vec<Server> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let address = words.next().unwrap_or_default().to_string();
        let mut weight = 1;
        for word in words {
            let value = word.strip_prefix("weight=").ok_or_else(|| {
                (
                    i + 1,
                    format!("'{word}' is not weight=W; a line is `host:port [weight=W]`"),
                )
            })?;
            weight = value
                .parse::<u32>()
                .ok()
                .filter(|w| (1..=MAX_WEIGHT).contains(w))
                .ok_or_else(|| {
                    (
                        i + 1,
                        format!("weight '{value}' must be a whole number from 1 to {MAX_WEIGHT}"),
                    )
                })?;
        }
        if servers.iter().any(|s| s.address == address) {
            let message = format!(
                "server '{address}' is listed twice; nginx would share its points between \
                 the two by round-robin"
            );
            return Err((i + 1, message));
        }
        servers.push(Server { address, weight });
    }
    if servers.is_empty() {
        return Err((1, "no server line; write one `host:port` a line".into()));
    }
    Ok(servers)
}

/// The host and port nginx hashes for a server address: the digits after the last `:` are
/// the port, `unix:PATH` has none, and an address without `:digits` is all host.
pub fn host_and_port(address: &str) -> (&[u8], &[u8]) {
    let bytes = address.as_bytes();
    if bytes.len() >= 5 && bytes[..5].eq_ignore_ascii_case(b"unix:") {
        return (&bytes[5..], b"");
    }
    let digits = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    match bytes.len().checked_sub(digits + 1) {
        Some(colon) if bytes[colon] == b':' => (&bytes[..colon], &bytes[colon + 1..]),
        _ => (bytes, b""),
    }
}

/// The `count` points of a server: CRC-32 of `host \0 port prev`, chained.
pub fn server_points(address: &str, count: u32) -> Vec<u32> {
    let (host, port) = host_and_port(address);
    let mut base = Vec::with_capacity(host.len() + port.len() + 5);
    base.extend_from_slice(host);
    base.push(0);
    base.extend_from_slice(port);
    let mut prev = 0u32;
    (0..count)
        .map(|_| {
            let mut digest = CRC32.digest();
            digest.update(&base);
            digest.update(&prev.to_le_bytes());
            prev = digest.finalize();
            prev
        })
        .collect()
}

/// nginx's consistent hash over some servers of a servers file.
#[derive(Clone, Debug)]
pub struct NginxChashPartitioner {
    label: String,
    /// How keys reach nginx: `u64` keys as their decimal digits.
    key_type: KeyType,
    /// Every server line of the file.
    servers: Arc<Vec<Server>>,
    /// Shard i is server line `ids[i]`.
    ids: Identities,
    /// Every point and its shard, sorted by point, one shard per point.
    points: Vec<(u32, ShardId)>,
}

impl NginxChashPartitioner {
    /// The upstream of server lines `ids` of `servers`; fails when a line is missing.
    pub fn new(
        label: impl Into<String>,
        key_type: KeyType,
        servers: Arc<Vec<Server>>,
        ids: Identities,
    ) -> Result<Self, AnalysisError> {
        let label = label.into();
        // The weights come from the file: their points are counted here, before any is made.
        let weight: u64 = ids
            .ids()
            .iter()
            .filter_map(|&id| servers.get(id as usize))
            .map(|s| u64::from(s.weight))
            .sum();
        let total = weight.saturating_mul(u64::from(POINTS_PER_WEIGHT));
        if total > crate::MAX_SCHEME_POINTS {
            return Err(AnalysisError::Config(format!(
                "scheme '{label}': {} servers of {weight} weight units in all would hold {total} \
                 points (160 x weight units), more than the {} a scheme may hold; give smaller \
                 weights in the servers file or fewer shards",
                ids.count(),
                crate::MAX_SCHEME_POINTS
            )));
        }
        let mut points = Vec::new();
        for (shard, &id) in ids.ids().iter().enumerate() {
            let server = servers.get(id as usize).ok_or_else(|| {
                AnalysisError::Config(format!(
                    "scheme '{label}': {} servers need {} server lines in the servers file, \
                     which has {}; add server lines to grow",
                    ids.count(),
                    id + 1,
                    servers.len()
                ))
            })?;
            let count = server.weight * POINTS_PER_WEIGHT;
            points.extend(
                server_points(&server.address, count)
                    .into_iter()
                    .map(|p| (p, shard as ShardId)),
            );
        }
        // A stable sort by point (glibc's qsort merge-sorts arrays this small), then the
        // first of equal points is kept, as nginx's loop after `ngx_qsort` does.
        points.sort_by_key(|p| p.0);
        points.dedup_by_key(|p| p.0);
        Ok(NginxChashPartitioner {
            label,
            key_type,
            servers,
            ids,
            points,
        })
    }

    /// The key's CRC-32 and the index of its point (first at or after it, wrapping).
    fn point_of(&self, key: &[u8]) -> (u32, usize) {
        let hash = CRC32.checksum(self.key_type.as_text(key, &mut [0; 20]));
        let i = self.points.partition_point(|p| p.0 < hash);
        (hash, i % self.points.len())
    }

    /// Every point with its shard, sorted by point.
    pub fn points(&self) -> &[(u32, ShardId)] {
        &self.points
    }
}

impl ByIdentity for NginxChashPartitioner {
    fn identities(&self) -> &Identities {
        &self.ids
    }

    fn rebuilt(&self, ids: Identities) -> Result<Self, AnalysisError> {
        Self::new(
            self.label.clone(),
            self.key_type,
            Arc::clone(&self.servers),
            ids,
        )
    }
}

impl Partitioner for NginxChashPartitioner {
    /// The continuum with every point redrawn ([`crate::ketama`]'s placement spread).
    fn with_salt(&self, salt: u64) -> Option<Box<dyn Partitioner + '_>> {
        let mut redrawn = self.clone();
        crate::ketama::redraw_points(&mut redrawn.points, salt);
        Some(Box::new(redrawn))
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn shard_count(&self) -> u32 {
        self.ids.count()
    }

    #[inline]
    fn shard_of(&self, key: &[u8]) -> ShardId {
        self.points[self.point_of(key).1].1
    }

    /// Every server (see [`super::scan_every_shard`]).
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        super::scan_every_shard(self, start, end, out);
    }

    /// Adds the next server lines of the file (or drops the last servers).
    fn resized(
        &self,
        shards: u32,
        _keys: &KeyCounts,
    ) -> Result<Box<dyn Partitioner>, AnalysisError> {
        self.resized_by_identity(shards)
    }

    /// Growth past the file's server lines.
    fn resize_refusal(&self, shards: u32) -> Option<String> {
        self.resized_by_identity(shards)
            .err()
            .map(|e| e.to_string())
    }

    /// Takes the server's line out: its keys go to the next point's server.
    fn without_shard(
        &self,
        shard: ShardId,
        _keys: &KeyCounts,
    ) -> Result<Option<Box<dyn Partitioner>>, AnalysisError> {
        self.without_by_identity(shard)
    }

    /// nginx proxies each request to one upstream server.
    fn replicas(&self, key: &[u8], _rf: u32, out: &mut Vec<ShardId>) {
        out.push(self.shard_of(key));
    }

    /// An upstream has no copies on other servers.
    fn replica_refusal(&self) -> Option<String> {
        Some(format!(
            "scheme '{}': nginx sends each request to the one upstream server its key picks; \
             plan with --replicas 1",
            self.label
        ))
    }

    /// `hash=H point=P` (u32 decimals), or `round-robin` for the empty key.
    fn detail(&self, key: &[u8]) -> Option<String> {
        if key.is_empty() {
            return Some("round-robin".into());
        }
        let (hash, i) = self.point_of(key);
        Some(format!("hash={hash} point={}", self.points[i].0))
    }

    /// The points and the server line numbers.
    fn router_bytes(&self) -> Option<u64> {
        Some(super::slice_bytes(&self.points) + super::slice_bytes(self.ids.ids()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{keys, moved, moved_on_removal};

    fn upstream(lines: &str, shards: u32) -> NginxChashPartitioner {
        let servers = Arc::new(parse_servers(lines).unwrap());
        let ids = Identities::first(shards, Weights::equal()).unwrap();
        NginxChashPartitioner::new("nginx-chash", KeyType::Bytes, servers, ids).unwrap()
    }

    #[test]
    fn addresses_are_cut_as_nginx_cuts_them() {
        let cut = |a| {
            let (h, p) = host_and_port(a);
            (String::from_utf8_lossy(h), String::from_utf8_lossy(p))
        };
        assert_eq!(cut("127.0.0.1:8080"), ("127.0.0.1".into(), "8080".into()));
        assert_eq!(cut("example.com"), ("example.com".into(), "".into()));
        assert_eq!(cut("[::1]:81"), ("[::1]".into(), "81".into()));
        assert_eq!(cut("UNIX:/tmp/s:1"), ("/tmp/s:1".into(), "".into()));
        assert_eq!(cut("a:b1"), ("a:b1".into(), "".into()));
    }

    #[test]
    fn points_chain_crc32_over_host_nul_port_and_the_previous_point() {
        let points = server_points("10.0.0.1:80", 3);
        assert_eq!(points[0], CRC32.checksum(b"10.0.0.1\x0080\0\0\0\0"));
        let mut second = b"10.0.0.1\x0080".to_vec();
        second.extend_from_slice(&points[0].to_le_bytes());
        assert_eq!(points[1], CRC32.checksum(&second));
        // CRC-32 of "123456789" is the standard check value.
        assert_eq!(CRC32.checksum(b"123456789"), 0xcbf4_3926);
        let up = upstream(
            "10.0.0.1:80\n10.0.0.2:80 weight=2\n# spare\n10.0.0.3:80\n",
            2,
        );
        assert_eq!(up.points().len(), 480);
        assert!(up.points().windows(2).all(|w| w[0].0 < w[1].0));
        for key in keys(2000) {
            let h = CRC32.checksum(&key);
            let owner = up.points().iter().find(|p| p.0 >= h);
            assert_eq!(up.shard_of(&key), owner.unwrap_or(&up.points()[0]).1);
        }
        assert_eq!(up.detail(b"").as_deref(), Some("round-robin"));
    }

    #[test]
    fn growth_takes_the_next_server_line_and_moves_keys_only_to_it() {
        let lines = "127.0.0.1:9001\n127.0.0.1:9002\n127.0.0.1:9003\n127.0.0.1:9004\n";
        let three = upstream(lines, 3);
        let four = three.resized(4, &KeyCounts::new()).unwrap();
        let keys = keys(20_000);
        let (share, to_new) = moved(&three, four.as_ref(), &keys, Some(3));
        assert!(
            (share - 0.25).abs() < 0.08 && to_new == 1.0,
            "{share} {to_new}"
        );
        let refusal = three.resize_refusal(5).unwrap();
        assert!(refusal.contains("has 4"), "{refusal}");
        let without = three.without_shard(0, &KeyCounts::new()).unwrap().unwrap();
        assert_eq!(moved_on_removal(&three, without.as_ref(), &keys, 0), 0.0);
    }

    #[test]
    fn bad_server_files_name_the_line() {
        assert_eq!(parse_servers("a:1\nb:2 weight=0\n").unwrap_err().0, 2);
        assert_eq!(parse_servers("a:1\nb:2 backup\n").unwrap_err().0, 2);
        assert!(parse_servers("a:1\n\na:1\n")
            .unwrap_err()
            .1
            .contains("twice"));
        assert!(parse_servers("# none\n").is_err());
    }
}
