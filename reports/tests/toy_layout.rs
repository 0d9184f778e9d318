//! A changing layout written in one file (this one) and registered by one line
//! (`SchemeSpec::of_kind(&TOY, ...)`) gets everything a changing layout gets, with nothing
//! else touched: the replay drives it in the one pass beside a fixed scheme, `timeline.csv`
//! holds its rows with its own column, `summary.csv` its metric and the figures every scheme
//! has, the timeline chart draws it and the report speaks of it; a run cut into parts
//! merges into the single run with it.

use std::sync::Arc;

use engine::changing::{LayoutRun, LayoutRunState};
use engine::replay::{
    build_fixed, finish_parts, learn_warmup, replay, replay_layouts, replay_part, ReplayConfig,
    WorkloadInput,
};
use reports::data::RunData;
use reports::{exporters, Manifest};
use schemes::changing::{
    decode_state, encode_state, Cell, Changing, ChangingLayout, LayoutEnd, LayoutOutput,
    WindowLoad, WindowLog,
};
use schemes::value::{MetricDef, MetricValue};
use schemes::{AnalysisError, KeyCounts, Partitioner, SchemeKind, SchemeSpec, ShardId, ShardSet};
use serde::{Deserialize, Serialize};
use workloads::{Event, EventChunk, EventSource, KeyType, Spec, WorkloadError, WorkloadSpec};
use xxhash_rust::xxh3::xxh3_64;

/// Keys hashed onto `nodes` nodes, shifted by one node after every window that made requests.
struct Toy {
    at: Rotated,
    rotations: u64,
}

/// A hash layout rotated by `by` nodes: the toy's layout at any moment.
#[derive(Clone, Serialize, Deserialize)]
struct Rotated {
    nodes: u32,
    by: u64,
}

impl Partitioner for Rotated {
    fn label(&self) -> &str {
        "toy"
    }
    fn shard_count(&self) -> u32 {
        self.nodes
    }
    fn shard_of(&self, key: &[u8]) -> ShardId {
        (xxh3_64(key).wrapping_add(self.by) % u64::from(self.nodes)) as ShardId
    }
    fn scan_shards(&self, start: &[u8], end: &[u8], out: &mut ShardSet) {
        if end <= start {
            out.insert(self.shard_of(start));
        } else {
            out.insert_all(self.nodes);
        }
    }
    fn resized(&self, nodes: u32, _: &KeyCounts) -> Result<Box<dyn Partitioner>, AnalysisError> {
        Ok(Box::new(Rotated {
            nodes,
            ..self.clone()
        }))
    }
}

impl ChangingLayout for Toy {
    fn nodes(&self) -> u32 {
        self.at.nodes
    }
    fn route(&mut self, e: &Event<'_>, out: &mut ShardSet) {
        match e.end {
            Some(end) if !e.is_point() => self.at.scan_shards(e.key, end, out),
            _ => {
                out.insert(self.at.shard_of(e.key));
            }
        }
    }
    fn end_window(&mut self, _: &WindowLog, load: &WindowLoad<'_>) -> Vec<Cell> {
        let rotate = load.requests > 0;
        if rotate {
            self.at.by += 1;
            self.rotations += 1;
        }
        vec![Cell::Flag(rotate)]
    }
    fn timeline_columns(&self) -> Vec<&'static str> {
        vec![
            "window",
            "rotated",
            "events",
            "requests",
            "measured",
            "hottest_node_share",
        ]
    }
    fn final_state(&self) -> Result<Vec<u8>, AnalysisError> {
        encode_state(&self.at)
    }
    fn output(&self) -> LayoutOutput {
        LayoutOutput {
            tables: Vec::new(),
            metrics: vec![MetricValue {
                name: TOY_METRICS[0].name,
                unit: TOY_METRICS[0].unit,
                value: Some(self.rotations as f64),
            }],
        }
    }
}

static TOY_METRICS: &[MetricDef] = &[MetricDef {
    name: "toy_rotations",
    unit: "rotations",
    definition: "Windows after which the toy shifted every key by one node.",
}];

static TOY: SchemeKind = SchemeKind {
    name: "toy",
    about: "a hash layout that rotates after a hot window",
    system: |_| None,
    params: &[],
    needs_warmup: |_| false,
    points: |_, _| schemes::Points::NONE,
    build: |spec, _| {
        Err(AnalysisError::Config(format!(
            "'{spec}' changes as events replay"
        )))
    },
    changing: Some(Changing {
        check: |_| Ok(()),
        start: |_, setup| {
            Ok(Box::new(Toy {
                at: Rotated {
                    nodes: setup.nodes,
                    by: 0,
                },
                rotations: 0,
            }))
        },
        end: LayoutEnd {
            metrics: TOY_METRICS,
            final_layout: |state| Ok(Box::new(decode_state::<Rotated>(state)?)),
        },
    }),
};

#[test]
fn a_toy_changing_layout_gets_its_timeline_metrics_chart_and_report() {
    let workload = WorkloadSpec::parse("zipf:keys=2000,s=1.4").unwrap();
    let open = move || workload.open(5, 20_000);
    let input = WorkloadInput {
        label: "zipf".into(),
        description: String::new(),
        key_type: KeyType::Bytes,
        open: &open,
        watch: None,
    };
    let mut schemes = SchemeSpec::parse_list("hash").unwrap();
    schemes.push(SchemeSpec::of_kind(&TOY, Spec::parse("toy").unwrap()).unwrap());
    let cfg = ReplayConfig {
        shards: 4,
        window: 2_000,
        latency: None,
        ..ReplayConfig::default()
    };
    let result = replay(&input, &schemes, &cfg, &|_| {}).unwrap();
    let toy = &result.schemes[1];
    assert_eq!(
        (toy.scheme.as_str(), toy.shards, toy.load.requests),
        ("toy", 4, 20_000)
    );
    // Every window rotates, and the toy's owners are hash's shifted, so each window's loads
    // are hash's, rotated.
    assert_eq!(toy.extra_metrics[0].value, Some(10.0));
    let hash = &result.schemes[0].load;
    for (h, t) in hash.window_requests.iter().zip(&toy.load.window_requests) {
        let by = (0..4)
            .find(|&by| (0..4).all(|s| t[(s + by) % 4] == h[s]))
            .map(|b| b as u64);
        assert!(
            by.is_some(),
            "window {t:?} is not a rotation of hash's {h:?}"
        );
    }
    assert_eq!(
        toy.load.hottest_shard_share_windowed,
        hash.hottest_shard_share_windowed
    );
    assert_ne!(
        toy.load.shard_requests, hash.shard_requests,
        "each window on its own rotation"
    );

    let results = vec![result];
    let data = RunData::of_run(&results, Manifest::default()).unwrap();
    let files = exporters::render(&data, &exporters::all()).unwrap();
    let file = |name: &str| {
        let bytes = &files.iter().find(|(n, _)| *n == name).unwrap().1;
        String::from_utf8(bytes.clone()).unwrap()
    };
    let timeline = file("timeline.csv");
    let mut lines = timeline.lines();
    assert_eq!(
        lines.next(),
        Some("window,rotated,events,requests,measured,hottest_node_share,workload,scheme,shards")
    );
    assert!(lines.next().unwrap().starts_with("0,true,2000,2000,true,"));
    assert_eq!(timeline.lines().count(), 11);
    assert!(!files.iter().any(|(n, _)| *n == "splits.csv"));
    assert!(file("summary.csv").contains("zipf,toy,4,toy_rotations,10,rotations"));

    let rendered = reports::report::render(&data).unwrap();
    assert!(
        rendered.iter().any(|(n, _)| n.contains("layout_timeline")),
        "the timeline chart is drawn"
    );
    let md = &rendered.iter().find(|(n, _)| n.ends_with(".md")).unwrap().1;
    let md = String::from_utf8_lossy(md);
    assert!(md.contains("toy"), "the report names the toy layout");
}

/// Events `at..end` of a stream held in memory: one part of a run cut into parts.
struct Cut {
    events: Arc<EventChunk>,
    at: usize,
    end: usize,
}

impl EventSource for Cut {
    fn fill(&mut self, chunk: &mut EventChunk, max: usize) -> Result<usize, WorkloadError> {
        let n = (self.end - self.at).min(max);
        for i in self.at..self.at + n {
            chunk.push(self.events.get(i));
        }
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_toy_changing_layout_cut_into_three_parts_merges_into_the_single_run() {
    let mut events = EventChunk::with_capacity(30_000);
    let mut source = WorkloadSpec::parse("zipf:keys=3000,s=1.1")
        .unwrap()
        .open(9, 30_000)
        .unwrap();
    while source.fill(&mut events, 1 << 14).unwrap() > 0 {}
    let events = Arc::new(events);
    let whole = |at: usize, end: usize| -> Box<dyn EventSource> {
        Box::new(Cut {
            events: Arc::clone(&events),
            at,
            end,
        })
    };
    let all = events.len();
    let open = || Ok(whole(0, all));
    let input = WorkloadInput {
        label: "zipf".into(),
        description: String::new(),
        key_type: KeyType::Bytes,
        open: &open,
        watch: None,
    };
    let mut schemes = SchemeSpec::parse_list("range,hash").unwrap();
    schemes.insert(
        1,
        SchemeSpec::of_kind(&TOY, Spec::parse("toy").unwrap()).unwrap(),
    );
    let cfg = ReplayConfig {
        shards: 4,
        window: 1_500,
        latency: None,
        ..ReplayConfig::default()
    };
    let single = replay(&input, &schemes, &cfg, &|_| {}).unwrap();

    let (warmup, _) = learn_warmup(whole(0, all), &schemes, cfg.warmup_fraction, &|_| {}).unwrap();
    let built = build_fixed(&schemes, &cfg, &warmup, KeyType::Bytes).unwrap();
    let cuts = [0, 7_000, 19_000, all];
    let merged = cuts
        .windows(2)
        .map(|c| {
            replay_part(
                whole(c[0], c[1]),
                &built,
                &cfg,
                warmup.events,
                c[0] as u64,
                &|_| {},
            )
            .unwrap()
        })
        .reduce(|a, b| a.merge(b).unwrap())
        .unwrap();
    // The layouts' runs travel as bytes, as they do in a partial result.
    let layouts = replay_layouts(whole(0, all), &schemes, &cfg, warmup.events, &|_| {}).unwrap();
    let layouts = layouts
        .iter()
        .map(|run| {
            let bytes = postcard::to_stdvec(&run.state()).unwrap();
            let state: LayoutRunState = postcard::from_bytes(&bytes).unwrap();
            Arc::new(LayoutRun::restore(state, &schemes[1]).unwrap())
        })
        .collect();
    let parts = finish_parts(
        &input,
        &schemes,
        &built,
        (&cfg, &[cfg.target_shards]),
        warmup.events,
        merged,
        layouts,
        &|_| {},
    )
    .unwrap()
    .remove(0);
    let csv = |result: engine::metrics::WorkloadResult| {
        let data = RunData::of_run(&[result], Manifest::default()).unwrap();
        exporters::render(&data, &exporters::all()).unwrap()
    };
    let (single, parts) = (csv(single), csv(parts));
    assert_eq!(
        single.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        parts.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, a), (_, b)) in single.iter().zip(&parts) {
        if *name != "manifest.json" {
            let lines = |bytes: &[u8]| -> Vec<String> {
                String::from_utf8_lossy(bytes)
                    .lines()
                    .filter(|l| !l.contains("build_ns"))
                    .map(str::to_string)
                    .collect()
            };
            assert_eq!(
                lines(a),
                lines(b),
                "{name} differs: single run, merged parts"
            );
        }
    }
    assert!(single.iter().any(|(n, _)| *n == "timeline.csv"));
}
