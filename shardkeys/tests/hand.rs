//! `shardlab keys` figures on a small trace, computed by hand.

use shardkeys::{analyze, KeysError, Options};

const TRACE: &str = "\
op,tenant,user,ts,ts_end,tenant_new,txn
put,a,1,1,,,t1
put,a,2,2,,,t1
get,a,1,,,,
get,a,,,,,
scan,,,1,3,,
put,b,3,3,,,t2
update,a,1,4,,b,t2
get,c,5,5,,,
";

fn run(trace: &str, candidates: &str) -> Result<shardkeys::KeysReport, KeysError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, trace).unwrap();
    let opts = Options {
        txn_col: Some("txn".into()),
        ..Options::new(candidates, "hash", 4).unwrap()
    };
    analyze(&path, &opts)
}

fn metric(csv: &str, cand: &str, scheme: &str, name: &str) -> String {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    r.records()
        .map(Result::unwrap)
        .find(|r| &r[0] == cand && &r[1] == scheme && &r[3] == name)
        .unwrap_or_else(|| panic!("no {cand}/{scheme}/{name} in\n{csv}"))[4]
        .to_string()
}

#[test]
fn tenant_figures_match_the_hand_count() {
    let rep = run(TRACE, "tenant; tenant,user").unwrap();
    let m = |c, s, n| metric(&rep.keys_csv, c, s, n);
    // 7 rows give a tenant (all but the scan): a a a a b a c.
    assert_eq!(m("tenant", "", "key_operations"), "7");
    assert_eq!(m("tenant", "", "cardinality"), "3");
    assert_eq!(m("tenant", "", "top1_share"), (5.0f64 / 7.0).to_string());
    // 4 writes, the update moves tenant a -> b.
    assert_eq!(m("tenant", "", "shard_key_updates"), "0.25");
    // Reads: get a, get a (user empty: tenant still given), get c single; the scan on ts
    // gives no tenant: scatter-gather.
    assert_eq!(m("tenant", "hash", "single_shard_reads"), "0.75");
    assert_eq!(m("tenant", "hash", "scatter_gather_reads"), "0.25");
    // tenant,user: the read by tenant alone scans every shard under hash.
    assert_eq!(m("tenant,user", "hash", "single_shard_reads"), "0.5");
    assert_eq!(m("tenant,user", "", "cardinality"), "4");
    assert!(rep
        .top_values_csv
        .contains("\"tenant,user\",1,\"a,1\",3,0.5\n"));
    assert_eq!(rep.recommendation.unsplittable, ["tenant", "tenant,user"]);
}

#[test]
fn a_timestamp_is_monotonic_and_its_hash_is_not() {
    let mut trace = String::from("op,ts\n");
    for i in 0..2000 {
        trace.push_str(&format!("put,{},\n", 1_700_000_000 + i));
    }
    let rep = run(&trace.replace("op,ts", "op,ts,txn"), "ts; hashed(ts)").unwrap();
    assert_eq!(metric(&rep.keys_csv, "ts", "", "monotonicity"), "1");
    assert_eq!(metric(&rep.keys_csv, "ts", "", "monotonic"), "1");
    let r: f64 = metric(&rep.keys_csv, "hashed(ts)", "", "monotonicity")
        .parse()
        .unwrap();
    assert!(r.abs() < 0.1, "{r}");
    assert_eq!(metric(&rep.keys_csv, "hashed(ts)", "", "monotonic"), "0");
}

#[test]
fn bad_columns_are_named() {
    let err = run(TRACE, "region").unwrap_err();
    assert!(
        matches!(&err, KeysError::Usage(m) if m.contains("'region'")),
        "{err}"
    );
    let err = run("op,x_end,txn\nget,1,\n", "x_end").unwrap_err();
    assert!(
        matches!(&err, KeysError::Data(m) if m.contains("'x_end'")),
        "{err}"
    );
}
