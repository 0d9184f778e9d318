//! `shardlab inspect TRACE`: read the trace once, print its profile as a table, and with
//! `--out DIR` write `inspect.csv` and `top_keys.csv`. The statistics live in
//! [`workloads::inspect`]; this file reads, prints and writes.

use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::Result;
use reports::output::OutputDir;
use workloads::inspect::{format_number, InspectConfig, Profiler, SizeStats, TraceProfile};
use workloads::synthetic::common::thousands;
use workloads::trace::{self, InvalidLog, OpenedTrace};
use workloads::{KeyType, Op};

use crate::cli::InspectArgs;
use crate::progress::events_bar;

/// Runs `shardlab inspect`.
pub fn run(args: InspectArgs) -> Result<()> {
    let opts = args
        .read
        .options(&args.trace, args.format)
        .map_err(crate::usage::usage)?;
    let shown = opts.shown();
    if let Some(dir) = &args.out {
        crate::usage::not_dash_dir(dir, "--out")?;
    }
    let out = args
        .out
        .as_ref()
        .map(|dir| OutputDir::claim(dir, args.force))
        .transpose()?;
    let mut opened = trace::open_detected(&opts)?;
    let cfg = InspectConfig {
        distinct_limit: args.distinct_limit as usize,
        top: args.top as usize,
        key_type: opened.key_type,
    };
    let mut profiler = Profiler::new(&cfg);
    let bar = events_bar(
        args.quiet,
        shown.display().to_string(),
        opened.source.len_hint(),
    );
    trace::stream(opened.source.as_mut(), |chunk| {
        profiler.add_chunk(chunk);
        bar.inc(chunk.len() as u64);
        Ok::<(), workloads::WorkloadError>(())
    })?;
    bar.finish_and_clear();
    report_skipped(&opts.invalid.log);
    let profile = profiler.finish(opened.format.time_unit_ns());
    let name = shown.display().to_string();
    let mut stdout = std::io::stdout().lock();
    write!(stdout, "{}", table(&profile, &name, &opened))?;
    if let Some(hint) = profile.key_type_hint() {
        eprintln!("hint: {hint}");
    }
    if let Some(out) = out {
        let extra = [
            ("trace", name.clone()),
            ("format", opened.format.name().to_string()),
            ("compression", opened.compression.name().to_string()),
            ("invalid_skipped", opts.invalid.log.skipped().to_string()),
        ];
        out.write_file("inspect.csv", &profile.inspect_csv(&extra))?;
        out.write_file("top_keys.csv", &profile.top_keys_csv(opened.key_type))?;
        writeln!(
            stdout,
            "written: {}/inspect.csv, top_keys.csv",
            out.path().display()
        )?;
    }
    // The source is dropped only now: a reader never holds more than its buffers.
    drop(opened);
    Ok(())
}

/// Prints how many malformed records `--skip-invalid` skipped, and the first of them.
pub fn report_skipped(log: &InvalidLog) {
    let skipped = log.skipped();
    if skipped > 0 {
        eprintln!(
            "skipped {} invalid record{} (first: {})",
            thousands(skipped),
            if skipped == 1 { "" } else { "s" },
            log.first().unwrap_or_default()
        );
    }
}

/// The profile as a table for people.
fn table(p: &TraceProfile, name: &str, opened: &OpenedTrace) -> String {
    let mut t = String::new();
    let mut row = |label: &str, value: String| {
        let _ = writeln!(t, "{label:<16} {value}");
    };
    let pct = |n: u64| {
        if p.events == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * n as f64 / p.events as f64)
        }
    };
    let compression = match opened.compression {
        workloads::trace::Compression::None => "plain".to_string(),
        c => format!("{}-compressed", c.name()),
    };
    row(
        "trace",
        format!("{name} ({}, {compression})", opened.format),
    );
    row("events", thousands(p.events));
    let d = p.distinct_keys;
    row(
        "distinct keys",
        if d.is_exact() {
            thousands(d.value as u64)
        } else {
            format!(
                "~{} (estimated from a {} sample; 95% CI {}..{})",
                thousands(d.value.round() as u64),
                format_number(d.sample_rate),
                thousands(d.ci_low.floor() as u64),
                thousands(d.ci_high.ceil() as u64)
            )
        },
    );
    let ops: Vec<String> = Op::ALL
        .iter()
        .map(|&op| {
            format!(
                "{} {} ({})",
                op.name(),
                thousands(p.op_count(op)),
                pct(p.op_count(op))
            )
        })
        .collect();
    let mut ops = ops.join(", ");
    if p.range_writes > 0 {
        ops += &format!(
            "; {} of the writes are range writes (every key of a range)",
            thousands(p.range_writes)
        );
    }
    row("ops", ops);
    match &p.time {
        Some(time) => {
            let unit = match time.unit_ns {
                Some(1_000_000_000) => "s",
                Some(1_000) => "us",
                Some(100) => "x100ns",
                Some(_) | None => "trace units",
            };
            // The span is max - min: say so when those are not the first and last.
            let range = if (time.min, time.max) == (time.first, time.last) {
                String::new()
            } else {
                format!("; min {} .. max {}", time.min, time.max)
            };
            let mut text = format!(
                "{} .. {}{range} ({} {unit})",
                time.first,
                time.last,
                thousands(time.span)
            );
            if let Some(secs) = time.seconds().filter(|s| *s > 0.0) {
                let _ = write!(text, ", {:.1} events/s", p.events as f64 / secs);
            } else if time.span > 0 {
                let _ = write!(
                    text,
                    ", {:.3} events per unit",
                    p.events as f64 / time.span as f64
                );
            }
            if time.decreases > 0 {
                let _ = write!(text, "; {} go backwards", thousands(time.decreases));
            }
            row("time", text);
        }
        None => row("time", "no timestamps".into()),
    }
    row("key size", sizes(p.key_size.as_ref(), "bytes"));
    row("value size", sizes(p.value_size.as_ref(), "bytes"));
    row(
        "scans",
        format!(
            "{} ({}); length {}",
            thousands(p.op_count(Op::Scan)),
            pct(p.op_count(Op::Scan)),
            sizes(p.scan_len.as_ref(), "keys")
        ),
    );
    row(
        "zipf",
        match p.zipf {
            Some(z) => format!(
                "s = {:.3} (KS distance {:.3} over the top {} keys: {})",
                z.s,
                z.ks,
                thousands(z.ranks as u64),
                if z.ks < 0.05 {
                    "good fit"
                } else if z.ks < 0.1 {
                    "rough fit"
                } else {
                    "poor fit"
                }
            ),
            None => "too few repeated keys to fit".into(),
        },
    );
    let share = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.3}"));
    row(
        "monotonicity",
        format!(
            "{} new maxima, {} increases (1.0 = every key after the previous)",
            share(p.monotonicity),
            share(p.increases)
        ),
    );
    let _ = writeln!(t, "top keys");
    let key_type: KeyType = opened.key_type;
    for k in &p.top_keys {
        let bound = if k.error > 0 {
            format!(" (at least {})", thousands(k.count - k.error))
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "  {:>3}  {:<40} {:>12}{bound}  {:.2}%",
            k.rank,
            key_type.display_short(&k.key, 40),
            thousands(k.count),
            100.0 * k.share
        );
    }
    t
}

fn sizes(s: Option<&SizeStats>, unit: &str) -> String {
    match s {
        None => "-".into(),
        Some(s) => format!(
            "min {} / mean {:.1} / p50 {} / p99 {} / max {} {unit}",
            s.min, s.mean, s.p50, s.p99, s.max
        ),
    }
}
