//! `postgres-hash` against a real PostgreSQL: a throwaway cluster (`initdb`) on a free
//! loopback port, a `text` table hash-partitioned with modulus 5 and an `int8` one with
//! modulus 4, thousands of rows inserted and read back with the partition each landed in
//! (`tableoid`), compared with `shardlab route`.
//!
//! Needs PostgreSQL's server binaries (Debian package `postgresql`; as root the cluster runs
//! as the `postgres` user). Without them the test prints a SKIPPED line, or fails when
//! `SHARDLAB_REQUIRE_POSTGRES=1` (as `.ci/run` sets).

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The directory of `initdb`, `pg_ctl` and `postgres`: Debian's `/usr/lib/postgresql/V/bin`
/// (the newest), else wherever `initdb` is on the PATH.
fn server_bin() -> Option<PathBuf> {
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists() && p.join("pg_ctl").exists())
        .collect();
    debian.sort();
    debian.pop().or_else(|| {
        let out = Command::new("sh")
            .args(["-c", "command -v initdb"])
            .output()
            .ok()?;
        let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        path.parent().map(Path::to_path_buf)
    })
}

/// True when this process runs as root (PostgreSQL refuses to run as root).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// A command of the server binaries, run as `postgres` when we are root.
fn server_command(bin: &Path, program: &str) -> Command {
    if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(bin.join(program));
        cmd
    } else {
        Command::new(bin.join(program))
    }
}

/// A running throwaway cluster; stopped when dropped.
struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = server_command(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

impl Cluster {
    fn start(bin: &Path) -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        if is_root() {
            let status = Command::new("chown")
                .arg("postgres")
                .arg(dir.path())
                .status();
            assert!(
                status.unwrap().success(),
                "chown postgres of the cluster's folder"
            );
        }
        let data = dir.path().join("data");
        let out = server_command(bin, "initdb")
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            dir.path().display()
        );
        let out = server_command(bin, "pg_ctl")
            .arg("-D")
            .arg(&data)
            .args(["-o", &options, "-l"])
            .arg(dir.path().join("log"))
            .args(["-w", "start"])
            .output()
            .unwrap();
        let cluster = Cluster {
            bin: bin.to_path_buf(),
            data,
            port,
            _dir: dir,
        };
        assert!(
            out.status.success(),
            "pg_ctl start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        cluster
    }

    /// Runs `sql` through `psql`; its unaligned, tuples-only output.
    fn psql(&self, sql: &str) -> String {
        let mut child = Command::new(self.bin.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
            ])
            .args(["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("psql runs");
        let mut stdin = child.stdin.take().unwrap();
        let text = sql.to_string();
        let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(
            out.status.success(),
            "psql: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// `CREATE TABLE name (k TYPE) PARTITION BY HASH (k)` with partitions `name_0..`.
fn partitioned(name: &str, column: &str, modulus: u32) -> String {
    let mut sql = format!("CREATE TABLE {name} (k {column}) PARTITION BY HASH (k);\n");
    for r in 0..modulus {
        sql.push_str(&format!(
            "CREATE TABLE {name}_{r} PARTITION OF {name} \
             FOR VALUES WITH (MODULUS {modulus}, REMAINDER {r});\n"
        ));
    }
    sql
}

/// The partition number of each row: `k -> r` of `SELECT k_text, tableoid`.
fn read_back(cluster: &Cluster, name: &str, key_sql: &str) -> Vec<(String, u32)> {
    let sql = format!("SELECT {key_sql}, tableoid::regclass FROM {name};");
    cluster
        .psql(&sql)
        .lines()
        .map(|l| {
            let (k, table) = l.rsplit_once('|').unwrap();
            let r = table.rsplit_once('_').unwrap().1.parse().unwrap();
            (k.to_string(), r)
        })
        .collect()
}

/// `shardlab route --schemes postgres-hash --shards N [--key-type T] --keys FILE`: the shard
/// of each line.
fn route(lines: &[String], shards: u32, key_type: &str) -> Vec<u32> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.txt");
    std::fs::write(
        &file,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let out = assert_cmd::Command::cargo_bin("shardlab")
        .unwrap()
        .args([
            "route",
            "--schemes",
            "postgres-hash",
            "--shards",
            &shards.to_string(),
        ])
        .args(["--key-type", key_type, "--keys"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let rows: Vec<u32> = reader
        .records()
        .map(|r| r.unwrap()[2].parse().unwrap())
        .collect();
    assert_eq!(rows.len(), lines.len());
    rows
}

#[test]
fn rows_land_in_the_partitions_shardlab_names_in_a_real_postgresql() {
    let Some(bin) = server_bin() else {
        assert!(
            std::env::var("SHARDLAB_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "SHARDLAB_REQUIRE_POSTGRES=1 but PostgreSQL's initdb is not installed \
             (Debian: apt-get install postgresql)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED rows_land_in_the_partitions_shardlab_names_in_a_real_postgresql: \
             PostgreSQL is not installed (apt-get install postgresql); set \
             SHARDLAB_REQUIRE_POSTGRES=1 to fail instead"
        );
        return;
    };
    let cluster = Cluster::start(&bin);

    // text: ASCII, {hash tags}, quotes, non-ASCII UTF-8 and the empty string.
    let mut texts: Vec<String> = vec![String::new()];
    for i in 0..1500 {
        texts.push(format!("user:{i}"));
        if i < 800 {
            texts.push(format!("{{user{}}}.field{i}", i % 37));
            texts.push(format!("ключ-{i}-日本語-é 🙂"));
        }
        if i < 100 {
            texts.push(format!("it's {i}"));
        }
    }
    let values: Vec<String> = texts
        .iter()
        .map(|t| format!("('{}')", t.replace('\'', "''")))
        .collect();
    let mut sql = partitioned("t", "text", 5);
    sql.push_str(&format!("INSERT INTO t VALUES {};\n", values.join(",")));
    // int8: small, negative as u64 bits, and around 2^63.
    let mut ints: Vec<u64> = (0..1000).collect();
    ints.extend((1..500).map(|i| u64::MAX - i * 7_919));
    ints.extend((0..500).map(|i| (1u64 << 63) + i * 104_729));
    ints.extend((0..500).map(|i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    let values: Vec<String> = ints.iter().map(|&v| format!("({})", v as i64)).collect();
    sql.push_str(&partitioned("n", "int8", 4));
    sql.push_str(&format!("INSERT INTO n VALUES {};\n", values.join(",")));
    cluster.psql(&sql);

    let rows = read_back(&cluster, "t", "encode(convert_to(k, 'UTF8'), 'hex')");
    assert_eq!(rows.len(), texts.len());
    let real: std::collections::HashMap<Vec<u8>, u32> = rows
        .into_iter()
        .map(|(hex, r)| {
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (bytes, r)
        })
        .collect();
    assert_eq!(real[&Vec::new()], {
        use analysis::schemes::{BuildContext, SchemeSpec};
        let spec = SchemeSpec::new(workloads::Spec::parse("postgres-hash").unwrap()).unwrap();
        let ctx = BuildContext {
            shards: 5,
            warmup_keys: &[],
            key_type: workloads::KeyType::Bytes,
            weights: None,
        };
        spec.build(&ctx).unwrap().shard_of(b"")
    });
    let routed = route(&texts[1..], 5, "bytes");
    for (text, shard) in texts[1..].iter().zip(routed) {
        assert_eq!(real[text.as_bytes()], shard, "partition of {text:?}");
    }

    let rows = read_back(&cluster, "n", "k");
    assert_eq!(rows.len(), ints.len());
    let real: std::collections::HashMap<u64, u32> = rows
        .into_iter()
        .map(|(k, r)| (k.parse::<i64>().unwrap() as u64, r))
        .collect();
    let lines: Vec<String> = ints.iter().map(u64::to_string).collect();
    for (v, shard) in ints.iter().zip(route(&lines, 4, "u64")) {
        assert_eq!(real[v], shard, "partition of int8 {}", *v as i64);
    }
}
