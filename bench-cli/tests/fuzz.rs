//! A seeded fuzz harness over the inputs that travel between machines and people: tampered run
//! directories for `report`, tampered partial results for `merge`, odd keys and options for
//! `route`. Every case asserts that the command
//! - ends with 0, 1 or 2 (never a panic, an abort or a signal),
//! - stays under [`MEMORY_KB`] of address space (`ulimit -v`: an allocation past it fails),
//! - leaves no temporary file behind (its `TMPDIR` and the directories it writes are checked),
//! - and, for `merge`, exits 0 only with the figures of the untampered merge (a tampered run
//!   directory may still hold plausible values, which `report` cannot tell from real ones).
//!
//! The cases are drawn from a fixed seed, so a failure names a case that replays.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The address space every fuzzed command gets, in KiB (1 GiB).
const MEMORY_KB: u64 = 1 << 20;

/// xorshift64*: a small seeded generator, so the cases do not depend on a crate's version.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_shardlab"))
}

/// Runs shardlab with `args` in `dir` under the memory bound, with its own empty `TMPDIR`,
/// and checks the exit and that `TMPDIR` is left empty; returns the output.
fn bounded(dir: &Path, args: &[String], stdin: Option<&[u8]>, case: &str) -> Output {
    let tmp = dir.join("tmpdir");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut script = format!("ulimit -v {MEMORY_KB}; exec \"$0\"");
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${{{i}}}\""));
    }
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&script)
        .arg(binary())
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", &tmp)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        if let Some(bytes) = stdin {
            let _ = input.write_all(bytes);
        }
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{case}: exit {:?} (a signal or an abort); stderr: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "{case}: temporary files left: {left:?}");
    out
}

/// Names in `dir` that look like a staged output (`.shardlab-PID-...`).
fn staged_leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".shardlab-"))
        .collect()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// One tampering of `bytes`, drawn from `rng`: a flipped bit, a cell replaced by a value no
/// run writes, a line repeated or deleted, or the file cut short.
fn tamper(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return b"x".to_vec();
    }
    match rng.below(5) {
        0 => {
            let i = rng.below(out.len());
            out[i] ^= 1 << rng.below(8);
        }
        1 => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            if lines.len() > 1 {
                let l = 1 + rng.below(lines.len() - 1);
                let mut cells: Vec<String> = lines[l].split(',').map(str::to_string).collect();
                let c = rng.below(cells.len());
                cells[c] = rng
                    .pick(&[
                        "-1",
                        "1e308",
                        "-1e308",
                        "NaN",
                        "inf",
                        "1e-320",
                        "99999999999",
                        "",
                        "x",
                        "4294967296",
                    ])
                    .to_string();
                lines[l] = cells.join(",");
            }
            out = (lines.join("\n") + "\n").into_bytes();
        }
        2 | 3 => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let mut lines: Vec<&str> = text.lines().collect();
            if lines.len() > 1 {
                let l = 1 + rng.below(lines.len() - 1);
                if rng.below(2) == 0 {
                    lines.insert(l, lines[l]);
                } else {
                    lines.remove(l);
                }
            }
            out = (lines.join("\n") + "\n").into_bytes();
        }
        _ => out.truncate(rng.below(out.len())),
    }
    out
}

#[test]
fn report_merge_and_route_survive_tampered_inputs_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = Rng(0x5eed_f00d_cafe_d00d);
    // A run directory, and a trace in three files run in three parts.
    let run = |args: &[&str]| {
        let out = bounded(d, &strings(args), None, &args.join(" "));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "gen",
        "zipf:keys=3000,s=1.1,scans=0.05",
        "--events",
        "9000",
        "-q",
        "-o",
        "t.csv",
    ]);
    let text = std::fs::read_to_string(d.join("t.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for (i, part) in lines[1..].chunks(3000).enumerate() {
        std::fs::write(
            d.join(format!("t{i}.csv")),
            format!("{}\n{}\n", lines[0], part.join("\n")),
        )
        .unwrap();
    }
    let opts = [
        "--trace",
        "t?.csv",
        "--schemes",
        "hash,range",
        "--shards",
        "4",
        "--no-latency",
        "-q",
    ];
    run(&[&["run"][..], &opts, &["--out", "whole"]].concat());
    for i in 0..3 {
        let part = format!("{i}/3");
        run(&[
            &["run"][..],
            &opts,
            &["--part", &part, "--out", &format!("count-{i}")],
        ]
        .concat());
    }
    for i in 0..3 {
        let part = format!("{i}/3");
        run(&[
            &["run"][..],
            &opts,
            &[
                "--part",
                &part,
                "--counts",
                "count-*",
                "--out",
                &format!("part-{i}"),
            ],
        ]
        .concat());
    }
    run(&["merge", "part-*", "--out", "merged", "-q"]);
    let figures = |dir: &Path| -> String {
        std::fs::read_to_string(dir.join("summary.csv"))
            .unwrap()
            .lines()
            .filter(|l| !l.contains("build_ns"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let truth = figures(&d.join("merged"));

    // `report` on tampered run directories.
    let files = [
        "summary.csv",
        "shards.csv",
        "windows.csv",
        "manifest.json",
        "recommendation.csv",
    ];
    for case in 0..40 {
        let copy = d.join(format!("report-{case}"));
        copy_dir(&d.join("whole"), &copy);
        let name = rng.pick(&files);
        let bytes = std::fs::read(copy.join(name)).unwrap();
        std::fs::write(copy.join(name), tamper(&mut rng, &bytes)).unwrap();
        let label = format!("report case {case} ({name})");
        let out = bounded(
            d,
            &strings(&["report", copy.to_str().unwrap()]),
            None,
            &label,
        );
        if out.status.code() == Some(1) {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(name) || err.contains("report"),
                "{label}: {err}"
            );
        }
        assert!(staged_leftovers(&copy).is_empty(), "{label}");
        std::fs::remove_dir_all(&copy).unwrap();
    }

    // `merge` of tampered partial results: refused, or the untampered figures.
    for case in 0..30 {
        let work = d.join(format!("merge-{case}"));
        for i in 0..3 {
            copy_dir(
                &d.join(format!("part-{i}")),
                &work.join(format!("part-{i}")),
            );
        }
        let part = work.join(format!("part-{}", rng.below(3)));
        let mut names: Vec<String> = std::fs::read_dir(&part)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let name = names[rng.below(names.len())].clone();
        let bytes = std::fs::read(part.join(&name)).unwrap();
        let mut bad = bytes.clone();
        while bad == bytes {
            bad = if name.ends_with(".json") {
                tamper(&mut rng, &bytes)
            } else {
                let mut b = bytes.clone();
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
                if rng.below(4) == 0 {
                    b.truncate(i);
                }
                b
            };
        }
        std::fs::write(part.join(&name), &bad).unwrap();
        let label = format!("merge case {case} ({}/{name})", part.display());
        let parts = format!("{}/part-*", work.display());
        let out_dir = work.join("out");
        let out = bounded(
            d,
            &strings(&["merge", &parts, "--out", out_dir.to_str().unwrap(), "-q"]),
            None,
            &label,
        );
        match out.status.code() {
            Some(0) => assert_eq!(
                figures(&out_dir),
                truth,
                "{label}: merged other figures with exit 0"
            ),
            _ => assert!(
                !out_dir.exists(),
                "{label}: a refused merge wrote its output"
            ),
        }
        assert!(staged_leftovers(&work).is_empty(), "{label}");
        std::fs::remove_dir_all(&work).unwrap();
    }

    // `route` with odd keys and options, from arguments and from standard input.
    let schemes = [
        "hash",
        "ring",
        "range",
        "jump",
        "maglev",
        "rendezvous",
        "ring:vnodes=65536",
        "anchor:capacity=99999999",
        "kafka",
        "redis-cluster",
        "cassandra",
        "range-dynamic",
        "ring,ring",
        "nope",
    ];
    let shards = [
        "0",
        "1",
        "4",
        "16384",
        "16385",
        "65536",
        "4294967296",
        "-1",
        "x",
    ];
    let keys: [&[u8]; 8] = [
        b"k1",
        b"",
        b" 42 ",
        b"18446744073709551616",
        b"\xff\xfe",
        b"a,b",
        b"{tag}x",
        b"-",
    ];
    for case in 0..60 {
        let mut args = strings(&[
            "route",
            "--schemes",
            rng.pick(&schemes),
            "--shards",
            rng.pick(&shards),
        ]);
        if rng.below(3) == 0 {
            args.extend(strings(&["--key-type", rng.pick(&["u64", "bytes", "int"])]));
        }
        if rng.below(3) == 0 {
            args.extend(strings(&[
                "--grow",
                rng.pick(&["+1", "x2", "0", "99999999", "-5"]),
            ]));
        }
        if rng.below(4) == 0 {
            args.extend(strings(&[
                "--weights",
                rng.pick(&["1,2,3,4", "1e308,1,1,1", "0,1", ""]),
            ]));
        }
        let key = rng.pick(&keys);
        let stdin = rng.below(2) == 0;
        let mut input = Vec::new();
        if stdin {
            args.push("-".into());
            for _ in 0..rng.below(2000) {
                input.extend_from_slice(key);
                input.push(b'\n');
            }
        } else {
            args.push(String::from_utf8_lossy(key).into_owned());
        }
        bounded(
            d,
            &args,
            Some(&input),
            &format!("route case {case}: {args:?}"),
        );
    }
}
