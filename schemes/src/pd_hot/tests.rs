//! `pd-hot` driven window by window as the engine drives it.

use workloads::{Event, Op, Spec};

use super::PdHot;
use crate::changing::{Cell, ChangingLayout, LayoutSetup, WindowLoad, WindowLog};
use crate::{KeyCounts, Partitioner, ShardSet};

/// Eight keys `k0..k7`: the first window cuts four regions `[.., k2)`, `[k2, k4)`,
/// `[k4, k6)`, `[k6, ..)` on stores 0, 1, 0, 1.
fn window(hot: &[(&str, usize)]) -> WindowLog {
    let mut log = WindowLog::default();
    let keys: Vec<String> = (0..8).map(|i| format!("k{i}")).collect();
    let mut push = |key: &[u8]| {
        log.push(Event {
            op: Op::Get,
            key,
            end: None,
            timestamp: None,
            size: None,
        })
    };
    for k in &keys {
        push(k.as_bytes());
    }
    for &(k, n) in hot {
        for _ in 0..n {
            push(k.as_bytes());
        }
    }
    log
}

/// Runs `windows` through `spec` on 2 stores, window `i` at second `i` of the trace; returns
/// the layout and its own timeline cells (hot regions, moves, bytes moved) per window.
fn drive(spec: &str, windows: &[WindowLog]) -> (PdHot, Vec<[u64; 3]>) {
    let setup = LayoutSetup {
        nodes: 2,
        time_unit_ns: 1_000_000_000,
    };
    let mut layout = PdHot::start(&Spec::parse(spec).unwrap(), &setup).unwrap();
    let mut rows = Vec::new();
    for (i, log) in windows.iter().enumerate() {
        let mut timed = WindowLog::default();
        for e in log.events() {
            timed.push(Event {
                timestamp: Some(i as u64),
                ..e
            });
        }
        let log = &timed;
        layout.begin_window(i as u64, log);
        let mut out = ShardSet::new(2);
        for e in log.events() {
            layout.route(&e, &mut out);
        }
        let load = WindowLoad {
            index: i as u64,
            events: log.len() as u64,
            node_requests: &[],
            requests: 0,
            hottest_node_share: 0.0,
            measured: true,
        };
        let cells = layout.end_window(log, &load);
        let count = |c: &Cell| match c {
            Cell::Count(n) => *n,
            other => panic!("not a count: {other:?}"),
        };
        rows.push([count(&cells[0]), count(&cells[1]), count(&cells[2])]);
    }
    (layout, rows)
}

#[test]
fn a_hot_region_moves_to_the_cooler_store_after_hot_degree_windows() {
    // Store 0 holds region 0 (k0 41 requests, k1 1) and region 2 (k4 21, k5 1): 64; store 1
    // the other 4 keys once each. Region 2 moves (22 + 4 <= 0.95 x 42) once hot 3 windows;
    // region 0 cannot (42 + 4 > 0.95 x 22).
    let windows: Vec<WindowLog> = (0..6).map(|_| window(&[("k0", 40), ("k4", 20)])).collect();
    let (layout, rows) = drive("pd-hot:regions=4", &windows);
    let moves: Vec<u64> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(moves, vec![0, 0, 1, 0, 0, 0]);
    assert_eq!(
        rows[2],
        [2, 1, 4],
        "2 hot regions, 1 move of k4 and k5 (2 bytes each)"
    );
    let ranges = layout.ranges().unwrap();
    assert_eq!(ranges.owners(), &[0, 1, 1, 1]);
    // The final layout routes as the cluster ended and grows by the scheduler's rule.
    let end = layout.final_layout().unwrap();
    assert_eq!((end.shard_of(b"k0"), end.shard_of(b"k4")), (0, 1));
    let grown = end.resized(3, &KeyCounts::default()).unwrap();
    assert_eq!(grown.shard_count(), 3);
    let values: Vec<f64> = layout
        .metric_values()
        .iter()
        .map(|m| m.value.unwrap())
        .collect();
    assert_eq!(values, vec![1.0, 4.0, 0.0, 2.0, 0.0]);
}

#[test]
fn a_region_hot_every_other_window_never_moves() {
    // Region 2 passes min_hot_rate (10) in even windows only: its streak never reaches 3.
    let windows: Vec<WindowLog> = (0..8)
        .map(|i| window(&[("k0", 40), ("k4", if i % 2 == 0 { 20 } else { 5 })]))
        .collect();
    let (_, rows) = drive("pd-hot:regions=4", &windows);
    assert_eq!(rows.iter().map(|r| r[1]).sum::<u64>(), 0);
    // With hot_degree=1 it moves in the first window.
    let (_, rows) = drive("pd-hot:regions=4,hot_degree=1", &windows);
    assert_eq!(rows[0][1], 1);
    assert_eq!(rows.iter().map(|r| r[1]).sum::<u64>(), 1);
}

#[test]
fn move_rate_paces_the_moves_by_bytes_per_second() {
    // Region 2 weighs 4 bytes: with 3 bytes per second (a window a second) the move waits
    // one window.
    let windows: Vec<WindowLog> = (0..6).map(|_| window(&[("k0", 40), ("k4", 20)])).collect();
    let (_, rows) = drive("pd-hot:regions=4,move_rate=3", &windows);
    let moves: Vec<u64> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(moves, vec![0, 0, 0, 1, 0, 0]);
}
