//! The proxies' schemes against the real proxies on loopback ports: `nginx-chash` against
//! nginx (`hash $http_x_key consistent` in front of upstream servers that answer their own
//! port) and `twemproxy` against nutcracker in front of `redis-server` instances (keys set
//! through the proxy, then looked for on every backend). Each compares thousands of keys
//! (ASCII, `{hash tags}`, non-ASCII UTF-8) with `shardlab route`, before and after the
//! proxy's own growth (a server line added).
//!
//! Needs Debian `nginx`, and `nutcracker` with `redis-server`; without them a test prints a
//! SKIPPED line, or fails when `SHARDLAB_REQUIRE_NGINX=1` / `SHARDLAB_REQUIRE_TWEMPROXY=1`
//! (as `.ci/run` sets).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{free_port, runs, Daemons};

/// Waits up to 10 s until something listens on `port`.
fn wait_for_port(what: &str, port: u16) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what} listens on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// False, after a SKIPPED line, when `program` is missing; fails instead when `require` is
/// set to 1.
fn installed_or_skip(test: &str, program: &str, package: &str, require: &str) -> bool {
    if runs(program, "-v") || runs(program, "--version") {
        return true;
    }
    assert!(
        std::env::var(require).as_deref() != Ok("1"),
        "{require}=1 but {program} is not installed (Debian: apt-get install {package})"
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {program} is not installed (apt-get install {package}); set \
         {require}=1 to fail instead"
    );
    false
}

/// Test keys, deterministic: ASCII, `{hash tags}`, spaces inside, non-ASCII UTF-8 (2-, 3-
/// and 4-byte characters), digits; none empty, none with a space or tab at either end, no
/// control byte (what an HTTP header value and a Redis key both carry unchanged).
fn test_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for i in 0..1500 {
        keys.push(format!("user:{i}").into_bytes());
        if i < 700 {
            keys.push(format!("{{user{}}}.field{i}", i % 37).into_bytes());
            keys.push(format!("ключ-{i}-日本語-é").into_bytes());
        }
        if i < 300 {
            keys.push(format!("🙂 {i} ü").into_bytes());
            keys.push(format!("{i}").into_bytes());
        }
    }
    keys
}

/// One row of `shardlab route`: shard, detail and shard_after.
struct Routed {
    shard: u32,
    detail: String,
    after: u32,
}

/// `shardlab route --schemes SPEC --shards N --grow M --keys FILE`.
fn route(spec: &str, shards: u32, grow: u32, keys: &[Vec<u8>]) -> Vec<Routed> {
    route_weighted(spec, (shards, grow), None, keys)
}

/// [`route`] with `--weights W` when given.
fn route_weighted(
    spec: &str,
    (shards, grow): (u32, u32),
    weights: Option<&str>,
    keys: &[Vec<u8>],
) -> Vec<Routed> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.txt");
    let text: Vec<u8> = keys.iter().flat_map(|k| [&k[..], b"\n"].concat()).collect();
    std::fs::write(&file, text).unwrap();
    let out = assert_cmd::Command::cargo_bin("shardlab")
        .unwrap()
        .args(["route", "--schemes", spec])
        .args(["--shards", &shards.to_string(), "--grow", &grow.to_string()])
        .args(weights.map(|w| ["--weights", w]).into_iter().flatten())
        .arg("--keys")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let rows: Vec<Routed> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            Routed {
                shard: r[2].parse().unwrap(),
                detail: r[3].to_string(),
                after: r[4].parse().unwrap(),
            }
        })
        .collect();
    assert_eq!(rows.len(), keys.len(), "one row per key");
    rows
}

/// An nginx in `dir` proxying `127.0.0.1:front` with `hash $http_x_key consistent` to the
/// upstream `servers` (lines of the servers file), each a server block that answers its
/// own port.
fn start_nginx(dir: &Path, front: u16, servers: &[String]) -> Child {
    std::fs::create_dir_all(dir).unwrap();
    let d = dir.display();
    let upstream: String = servers.iter().map(|s| format!("  server {s};\n")).collect();
    let backends: String = servers
        .iter()
        .map(|s| {
            let address = s.split_whitespace().next().unwrap();
            format!("  server {{ listen {address}; return 200 $server_port; }}\n")
        })
        .collect();
    let conf = format!(
        "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
         events {{ worker_connections 64; }}\nhttp {{\n  access_log off;\n  keepalive_requests 1000000;\n\
         client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n\
         scgi_temp_path {d}/scgi;\n  upstream backends {{\n  hash $http_x_key consistent;\n\
         {upstream}  }}\n{backends}  server {{ listen 127.0.0.1:{front}; \
         location / {{ proxy_pass http://backends; }} }}\n}}\n"
    );
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let child = Command::new("nginx")
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(&path)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx starts");
    wait_for_port("nginx", front);
    child
}

/// The upstream port that answers each key, asked through nginx on `front` over one
/// keep-alive connection with the key as the `X-Key` header.
fn nginx_answers(front: u16, keys: &[Vec<u8>]) -> Vec<u16> {
    let stream = TcpStream::connect(("127.0.0.1", front)).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    keys.iter()
        .map(|key| {
            let mut request = b"GET / HTTP/1.1\r\nHost: shardlab\r\nX-Key: ".to_vec();
            request.extend_from_slice(key);
            request.extend_from_slice(b"\r\n\r\n");
            writer.write_all(&request).unwrap();
            let mut length = None;
            let mut status = String::new();
            reader.read_line(&mut status).unwrap();
            assert!(
                status.starts_with("HTTP/1.1 200"),
                "nginx answered {status}"
            );
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = Some(v.trim().parse::<usize>().unwrap());
                }
            }
            let mut body = vec![0; length.expect("a Content-Length")];
            reader.read_exact(&mut body).unwrap();
            String::from_utf8(body).unwrap().parse().unwrap()
        })
        .collect()
}

#[test]
fn nginx_chash_matches_nginx_before_and_after_adding_a_server_line() {
    let name = "nginx_chash_matches_nginx";
    if !installed_or_skip(name, "nginx", "nginx", "SHARDLAB_REQUIRE_NGINX") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Five upstreams, one of weight 2; the sixth line is the server added by the growth.
    let ports: Vec<u16> = (0..6).map(|_| free_port()).collect();
    let servers: Vec<String> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| match i {
            2 => format!("127.0.0.1:{p} weight=2"),
            _ => format!("127.0.0.1:{p}"),
        })
        .collect();
    let file = dir.path().join("servers.txt");
    std::fs::write(&file, servers.join("\n") + "\n").unwrap();
    let spec = format!("nginx-chash:servers={}", file.display());
    let keys = test_keys();
    let routed = route(&spec, 5, 6, &keys);
    let shard_of_port = |port: u16| ports.iter().position(|&p| p == port).unwrap() as u32;
    for (shards, after) in [(5usize, false), (6, true)] {
        let front = free_port();
        let mut nginx = Daemons(vec![start_nginx(
            &dir.path().join(format!("nginx{shards}")),
            front,
            &servers[..shards],
        )]);
        let answers = nginx_answers(front, &keys);
        for ((key, row), port) in keys.iter().zip(&routed).zip(&answers) {
            let shard = if after { row.after } else { row.shard };
            let name = String::from_utf8_lossy(key);
            assert_eq!(
                shard,
                shard_of_port(*port),
                "{shards} servers: {name:?} ({})",
                row.detail
            );
        }
        nginx.0[0].kill().unwrap();
    }
    assert!(routed.iter().all(|r| r.detail.starts_with("hash=")));
    let moved = routed.iter().filter(|r| r.shard != r.after).count();
    assert!(routed.iter().all(|r| r.shard == r.after || r.after == 5));
    assert!(
        moved > keys.len() / 20,
        "{moved} keys moved to the new server"
    );
}

/// A RESP command of these arguments.
fn resp(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Sends `commands` pipelined to `port` and returns the one-line replies (`+OK`, `:1`).
fn pipeline(port: u16, commands: &[Vec<u8>]) -> Vec<String> {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let sender = {
        let all: Vec<u8> = commands.concat();
        std::thread::spawn(move || writer.write_all(&all).unwrap())
    };
    let mut reader = BufReader::new(stream);
    let replies = (0..commands.len())
        .map(|_| {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            line.trim_end().to_string()
        })
        .collect();
    sender.join().unwrap();
    replies
}

/// Starts `redis-server` on a free loopback port, without persistence.
fn start_redis(daemons: &mut Daemons) -> u16 {
    let port = free_port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    daemons.0.push(child);
    wait_for_port("redis-server", port);
    port
}

/// A nutcracker pool's YAML: `hash: H` (with `hash_tag: "{}"` when `hash` is `H+tag`),
/// ketama, servers `127.0.0.1:PORT:W shard{i}`, `W` the server's weight (1 when `weights`
/// is empty).
fn pool_yaml(name: &str, listen: u16, hash: &str, backends: &[u16], weights: &[u32]) -> String {
    let (hash, tag) = match hash.strip_suffix("+tag") {
        Some(h) => (h, "  hash_tag: \"{}\"\n"),
        None => (hash, ""),
    };
    let servers: String = backends
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let w = weights.get(i).copied().unwrap_or(1);
            format!("   - 127.0.0.1:{p}:{w} shard{i}\n")
        })
        .collect();
    format!(
        "{name}:\n  listen: 127.0.0.1:{listen}\n  hash: {hash}\n{tag}  distribution: ketama\n  \
         redis: true\n  auto_eject_hosts: false\n  servers:\n{servers}"
    )
}

/// For each key, the backend (index into `backends`) that holds it after it was set through
/// the proxy on `proxy`; every backend is emptied first, and each key must be on exactly one.
fn holders(proxy: u16, backends: &[u16], keys: &[Vec<u8>]) -> Vec<u32> {
    for &b in backends {
        assert_eq!(pipeline(b, &[resp(&[b"FLUSHALL"])]), ["+OK"]);
    }
    let sets: Vec<Vec<u8>> = keys.iter().map(|k| resp(&[b"SET", k, b"1"])).collect();
    let replies = pipeline(proxy, &sets);
    assert!(replies.iter().all(|r| r == "+OK"), "SET through nutcracker");
    let exists: Vec<Vec<u8>> = keys.iter().map(|k| resp(&[b"EXISTS", k])).collect();
    let found: Vec<Vec<String>> = backends.iter().map(|&b| pipeline(b, &exists)).collect();
    (0..keys.len())
        .map(|k| {
            let on: Vec<u32> = (0..backends.len() as u32)
                .filter(|&b| found[b as usize][k] == ":1")
                .collect();
            assert_eq!(on.len(), 1, "{:?} on one backend", keys[k]);
            on[0]
        })
        .collect()
}

#[test]
fn twemproxy_ketama_matches_nutcracker_for_every_hash_before_and_after_growth() {
    let name = "twemproxy_ketama_matches_nutcracker";
    let require = "SHARDLAB_REQUIRE_TWEMPROXY";
    if !installed_or_skip(name, "nutcracker", "nutcracker", require)
        || !installed_or_skip(name, "redis-server", "redis-server", require)
    {
        return;
    }
    let mut daemons = Daemons(Vec::new());
    let backends: Vec<u16> = (0..25).map(|_| start_redis(&mut daemons)).collect();
    // Every hash from 4 to 5 servers; md5 and fnv1a_64 also from 24 to 25, where nutcracker's
    // float arithmetic gives each server 156 points instead of 160.
    let mut cases: Vec<(&str, u32)> = schemes::twemproxy::HASHES.iter().map(|h| (*h, 4)).collect();
    cases.extend([("md5", 24), ("fnv1a_64", 24)]);
    // nutcracker's hash_tag "{}": keys with a tag are hashed by what is between the braces.
    cases.extend([("fnv1a_64+tag", 4), ("md5+tag", 5), ("crc32a+tag", 4)]);
    let cases: Vec<(&str, u32, &[u32])> = cases.into_iter().map(|(h, n)| (h, n, &[][..])).collect();
    // Weighted servers (`host:port:w`): 1,2,3,1, grown by a server of the mean weight rounded
    // (1.75: 2); and 5,1,1 with 24 in all, grown to 25.
    let mut heavy = vec![1u32; 25];
    heavy[..3].copy_from_slice(&[5, 1, 1]);
    let heavy_mean = (heavy[..24].iter().sum::<u32>() as f64 / 24.0).round() as u32;
    heavy[24] = heavy_mean;
    let weighted: [(&str, u32, &[u32]); 3] = [
        ("fnv1a_64", 4, &[1, 2, 3, 1, 2]),
        ("md5", 4, &[1, 2, 3, 1, 2]),
        ("murmur", 24, &heavy),
    ];
    let cases: Vec<(&str, u32, &[u32])> = cases.into_iter().chain(weighted).collect();
    let mut yaml = String::new();
    let mut pools = Vec::new();
    for (i, &(hash, n, w)) in cases.iter().enumerate() {
        let (now, after) = (free_port(), free_port());
        yaml += &pool_yaml(&format!("p{i}"), now, hash, &backends[..n as usize], w);
        yaml += &pool_yaml(
            &format!("q{i}"),
            after,
            hash,
            &backends[..n as usize + 1],
            w,
        );
        pools.push((now, after));
    }
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("nutcracker.yml");
    std::fs::write(&conf, yaml).unwrap();
    let child = Command::new("nutcracker")
        .arg("-c")
        .arg(&conf)
        .arg("-o")
        .arg(dir.path().join("nutcracker.log"))
        .args(["-s", &free_port().to_string(), "-a", "127.0.0.1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nutcracker starts");
    daemons.0.push(child);
    let keys = test_keys();
    for (&(hash, n, w), &(now, after)) in cases.iter().zip(&pools) {
        wait_for_port("nutcracker", after);
        let spec = match hash.strip_suffix("+tag") {
            Some(h) => format!("twemproxy:hash={h},hash_tag={{}}"),
            None => format!("twemproxy:hash={hash}"),
        };
        let weights: Option<String> = (!w.is_empty()).then(|| {
            let given: Vec<String> = w[..n as usize].iter().map(u32::to_string).collect();
            given.join(",")
        });
        let routed = route_weighted(&spec, (n, n + 1), weights.as_deref(), &keys);
        if let Some(given) = &weights {
            // The weights matter: the heaviest server holds over twice the lightest's keys.
            let on = |s: usize| routed.iter().filter(|r| r.shard as usize == s).count();
            let now = &w[..n as usize];
            let heaviest = (0..now.len()).max_by_key(|&s| now[s]).unwrap();
            let lightest = (0..now.len()).min_by_key(|&s| now[s]).unwrap();
            assert!(
                on(heaviest) > 2 * on(lightest),
                "{spec} --weights {given}: {} and {} keys",
                on(heaviest),
                on(lightest)
            );
        }
        let before = holders(now, &backends[..n as usize], &keys);
        let grown = holders(after, &backends[..n as usize + 1], &keys);
        for (k, row) in routed.iter().enumerate() {
            let key = String::from_utf8_lossy(&keys[k]);
            assert_eq!(
                row.shard, before[k],
                "{spec}, {n} servers: {key:?} ({})",
                row.detail
            );
            assert_eq!(row.after, grown[k], "{spec}, {} servers: {key:?}", n + 1);
        }
        // The empty key hashes to 0 in nutcracker.
        let empty = holders(now, &backends[..n as usize], &[Vec::new()]);
        let scheme = schemes::SchemeSpec::new(workloads::Spec::parse(&spec).unwrap()).unwrap();
        let weights: Vec<f64> = w[..w.len().min(n as usize)]
            .iter()
            .map(|&x| f64::from(x))
            .collect();
        let ctx = schemes::BuildContext {
            shards: n,
            warmup_keys: &[],
            key_type: workloads::KeyType::Bytes,
            weights: (!weights.is_empty()).then_some(&weights[..]),
        };
        assert_eq!(
            scheme.build(&ctx).unwrap().shard_of(b""),
            empty[0],
            "{spec} of ''"
        );
    }
}
