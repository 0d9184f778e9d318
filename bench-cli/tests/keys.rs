//! `shardlab keys` from the command line: outputs, exit statuses, the recommendation.

use assert_cmd::Command;

const TRACE: &str = "\
op,tenant,user,ts
put,a,1,1
put,a,2,2
put,a,3,3
put,b,4,4
get,c,5,
get,d,6,
get,e,7,
get,f,8,
get,g,9,
get,h,10,
";

fn shardlab(dir: &std::path::Path, args: &[&str]) -> assert_cmd::assert::Assert {
    std::fs::write(dir.join("t.csv"), TRACE).unwrap();
    Command::cargo_bin("shardlab")
        .unwrap()
        .current_dir(dir)
        .args(["keys", "--trace", "t.csv", "--out", "out", "--shards", "4"])
        .args(args)
        .assert()
}

#[test]
fn keys_writes_tidy_csv_and_names_the_unsplittable_candidate() {
    let dir = tempfile::tempdir().unwrap();
    // tenant 'a' carries 3 of 10 operations: 30%, unsplittable at the default 0.3.
    let out = shardlab(dir.path(), &["--candidates", "tenant; user"]).success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("tenant is unsplittable"), "{stdout}");
    assert!(stdout.contains("Recommended: **user**"), "{stdout}");
    let keys = std::fs::read_to_string(dir.path().join("out/keys.csv")).unwrap();
    assert!(keys.starts_with("candidate,scheme,shards,metric,value\n"));
    assert!(keys.contains("tenant,,,top1_share,0.3\n"), "{keys}");
    assert!(dir.path().join("out/top_values.csv").is_file());
}

#[test]
fn an_unknown_column_exits_2_and_a_dangling_end_column_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = shardlab(dir.path(), &["--candidates", "region"]).code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("'region'"));
    std::fs::write(dir.path().join("b.csv"), "op,x,y_end\nget,1,2\n").unwrap();
    let out = Command::cargo_bin("shardlab")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "keys",
            "--trace",
            "b.csv",
            "--candidates",
            "x",
            "--out",
            "o",
        ])
        .assert()
        .code(1);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("'y_end'"));
    assert!(!dir.path().join("o").exists(), "no output on error");
}
