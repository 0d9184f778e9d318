//! The balancer's rules on small crafted cases: no move when balanced, the churn budget,
//! a hot slice split before it moves, cold neighbours merged, growth and shrink.

use workloads::Spec;

use super::round::{imbalance, round, settle, task_loads, RoundOptions};
use super::slices::{share, HashLoads, Slices, SPACE};
use super::{FinalSlices, SlicerParams};

fn options(text: &str, tasks: u32) -> RoundOptions {
    RoundOptions::new(
        &SlicerParams::parse(&Spec::parse(text).unwrap()).unwrap(),
        tasks,
    )
}

/// `n` hashes spread evenly over the space, one request each.
fn uniform(n: u64) -> HashLoads {
    HashLoads::new(
        (0..n)
            .map(|i| ((u128::from(i) * SPACE / u128::from(n)) as u64 + 1, 1))
            .collect(),
    )
}

/// Skewed loads: hash `i * 2^64 / n` gets `n / (i + 1)` requests, hashes in a fixed shuffle.
fn skewed(n: u64) -> HashLoads {
    HashLoads::new(
        (0..n)
            .map(|i| {
                let h = crate::pinned_hash::hash64(&i.to_be_bytes());
                (h, n / (i + 1))
            })
            .collect(),
    )
}

#[test]
fn a_balanced_assignment_makes_no_move() {
    let mut s = Slices::round_robin(4, 4, 4);
    let before = s.clone();
    let r = round(&mut s, &uniform(1600), &options("slicer", 4));
    assert_eq!((r.splits, r.merges, r.moves.len()), (0, 0, 0));
    assert_eq!(s, before);
}

#[test]
fn one_round_never_exceeds_the_churn_budget() {
    for budget in ["0.01", "0.05", "0.09", "0.2", "0.5", "1"] {
        for loads in [uniform(1200), skewed(5000)] {
            let mut s = Slices::round_robin(4, 3, 4);
            let opts = options(&format!("slicer:churn_budget={budget}"), 4);
            let r = round(&mut s, &loads, &opts);
            assert!(r.churn() <= opts.budget, "{budget}: {r:?}");
            assert!(s.is_valid());
        }
    }
    // Slices of 1/12 of the space: one fits 0.09 (and moves), none fits 0.05.
    let mut s = Slices::round_robin(4, 3, 4);
    let r = round(&mut s, &uniform(1200), &options("slicer", 4));
    assert_eq!((r.moves.len(), r.splits), (1, 0));
    assert_eq!(r.churn(), s.width(r.moves.len() - 1));
    let mut s = Slices::round_robin(4, 3, 4);
    let r = round(
        &mut s,
        &uniform(1200),
        &options("slicer:churn_budget=0.05", 4),
    );
    assert!(r.moves.is_empty());
}

/// Two slices, one per task: task 0's slice has 8 requests spread over it, task 1's has 2.
fn hot_and_cold() -> (Slices, HashLoads) {
    let mut pairs: Vec<(u64, u64)> = (0..8).map(|i| (i << 60, 1)).collect();
    pairs.extend([(1 << 63, 1), ((1 << 63) + 5, 1)]);
    (Slices::round_robin(1, 2, 2), HashLoads::new(pairs))
}

#[test]
fn a_hot_slice_is_split_before_being_moved() {
    let (mut s, loads) = hot_and_cold();
    let r = round(
        &mut s,
        &loads,
        &options("slicer:slices_per_task=1,churn_budget=1", 2),
    );
    // Moving the whole slice (8) would leave task 1 at 10: its lower half (4) moves instead.
    assert_eq!((r.splits, r.moves.len()), (1, 1));
    assert_eq!((r.moves[0].start, r.moves[0].width), (0, 1 << 62));
    assert_eq!((r.moves[0].from, r.moves[0].to, r.moves[0].load), (0, 1, 4));
    assert_eq!(s.starts, vec![0, 1 << 62, 1 << 63]);
    assert_eq!(s.owner, vec![1, 0, 1]);
    assert_eq!(task_loads(&s, &loads.per_slice(&s)), vec![4, 6]);
    // Without room for a split, no move helps.
    let (mut s, loads) = hot_and_cold();
    let opts = options(
        "slicer:slices_per_task=1,max_slices_per_task=1,churn_budget=1",
        2,
    );
    let r = round(&mut s, &loads, &opts);
    assert_eq!((r.splits, r.moves.len()), (0, 0));
}

#[test]
fn adjacent_cold_slices_merge() {
    // Four slices on two tasks where the target is one slice per task; the first two are
    // idle and on the same task.
    let starts = vec![0, 1 << 62, 1 << 63, 3 << 62];
    let mut s = Slices {
        tasks: 2,
        starts: starts.clone(),
        owner: vec![0, 0, 1, 1],
    };
    let loads = HashLoads::new(vec![((1 << 63) + 1, 5), ((3 << 62) + 1, 5)]);
    let r = round(&mut s, &loads, &options("slicer:slices_per_task=1", 2));
    assert_eq!((r.merges, r.moves.len()), (1, 0));
    assert_eq!(s.starts, vec![0, 1 << 63, 3 << 62]);
    assert_eq!(s.owner, vec![0, 1, 1]);
    // Idle neighbours on different tasks: merging moves a quarter of the space, past the
    // default budget; with budget 1 the right one joins the left one's task.
    let on_two = Slices {
        tasks: 2,
        starts,
        owner: vec![0, 1, 1, 0],
    };
    let loads = HashLoads::new(vec![((1 << 63) + 1, 5), ((3 << 62) + 1, 5)]);
    let mut s = on_two.clone();
    let r = round(&mut s, &loads, &options("slicer:slices_per_task=1", 2));
    assert_eq!(r.merges, 0);
    let mut s = on_two;
    let r = round(
        &mut s,
        &loads,
        &options("slicer:slices_per_task=1,churn_budget=1", 2),
    );
    assert!(r.merges >= 1, "{r:?}");
    assert_eq!(
        (r.moves[0].start, r.moves[0].from, r.moves[0].to),
        (1 << 62, 1, 0)
    );
}

#[test]
fn growth_settles_on_the_new_task_and_shrink_drains() {
    let params = SlicerParams::parse(&Spec::parse("slicer").unwrap()).unwrap();
    let start = FinalSlices::new("slicer", params, Slices::round_robin(4, 3, 3));
    let loads = uniform(1200);
    let grown = start.resized_slices(4, &loads);
    assert_eq!(task_loads(&grown, &loads.per_slice(&grown)), vec![300; 4]);
    let moved: u128 = (0..grown.len())
        .filter(|&i| grown.owner[i] == 3)
        .map(|i| grown.width(i))
        .sum();
    assert_eq!(share(moved), 0.25);
    let back = FinalSlices::new("slicer", start_params(), grown).resized_slices(3, &loads);
    assert!(back.owner.iter().all(|&t| t < 3));
    assert!(imbalance(&task_loads(&back, &loads.per_slice(&back))) <= 1.05);
    // Without requests nothing moves.
    let mut idle = Slices::round_robin(4, 3, 4);
    let rounds = settle(&mut idle, &HashLoads::default(), &options("slicer", 4), 10);
    assert_eq!(rounds.len(), 1);
    assert!(rounds[0].moves.is_empty());
}

fn start_params() -> SlicerParams {
    SlicerParams::parse(&Spec::parse("slicer").unwrap()).unwrap()
}

#[test]
fn a_hottest_task_that_is_one_hot_key_lets_the_next_one_give() {
    // Task 0 holds one key of 100 requests, task 1 six keys of 10 spread over slice 1, task
    // 2 nothing: task 0 cannot be helped, task 1 gives half its slice to task 2.
    let mut s = Slices::round_robin(2, 2, 3);
    let mut pairs = vec![(7u64, 100u64)];
    pairs.extend([0u64, 1, 2, 4, 5, 6].map(|k| ((1 << 62) + k * (1 << 59), 10)));
    let loads = HashLoads::new(pairs);
    let r = round(
        &mut s,
        &loads,
        &options("slicer:slices_per_task=2,churn_budget=1", 3),
    );
    assert_eq!((r.splits, r.moves.len()), (1, 1), "{r:?}");
    let m = r.moves[0];
    assert_eq!(
        (m.start, m.width, m.from, m.to, m.load),
        (1 << 62, 1 << 61, 1, 2, 30)
    );
    assert_eq!(task_loads(&s, &loads.per_slice(&s)), vec![100, 30, 30]);
}
