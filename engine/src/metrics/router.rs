//! What the router costs: the memory of each scheme's lookup structure
//! ([`Partitioner::router_bytes`]) and the time to build it.

use serde::Serialize;

use schemes::Partitioner;

/// The memory and build time of one scheme's lookup structure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RouterCost {
    /// Bytes the lookup structure holds (`None` when the scheme does not say).
    pub bytes: Option<u64>,
    /// Nanoseconds to build it from its spec (`None` when not built here).
    pub build_ns: Option<f64>,
}

/// The cost of `part`, built in `build_ns` nanoseconds.
pub fn cost(part: &dyn Partitioner, build_ns: f64) -> RouterCost {
    RouterCost {
        bytes: part.router_bytes(),
        build_ns: Some(build_ns),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::build_timed;
    use schemes::{BuildContext, SchemeSpec};

    #[test]
    fn a_maglev_table_costs_its_slots_and_hash_costs_nothing() {
        let ctx = BuildContext {
            shards: 16,
            warmup_keys: &[],
            key_type: Default::default(),
            weights: None,
        };
        let spec = &SchemeSpec::parse_list("maglev:table=1601,hash").unwrap();
        let (maglev, ns) = build_timed(&spec[0], &ctx).unwrap();
        // 1601 slots and 16 identities of 4 bytes.
        assert_eq!(cost(maglev.as_ref(), ns).bytes, Some(4 * (1601 + 16)));
        assert!(ns > 0.0);
        let (hash, _) = build_timed(&spec[1], &ctx).unwrap();
        assert_eq!(hash.router_bytes(), Some(0));
    }

    #[test]
    fn real_systems_say_what_their_routers_hold() {
        let ctx = BuildContext {
            shards: 6,
            warmup_keys: &[],
            key_type: Default::default(),
            weights: None,
        };
        let specs = SchemeSpec::parse_list("redis-cluster,kafka,elasticsearch,cassandra").unwrap();
        let bytes: Vec<Option<u64>> = specs
            .iter()
            .map(|s| build_timed(s, &ctx).unwrap().0.router_bytes())
            .collect();
        // Redis: one 4-byte owner per slot; Kafka and Elasticsearch: arithmetic.
        assert_eq!(bytes[..3], [Some(4 * 16384), Some(0), Some(0)]);
        // Cassandra: its token ring of 6 x 16 points, sized as `ring` sizes its own.
        assert!(bytes[3].unwrap() > 6 * 16 * 8, "{bytes:?}");
    }
}
