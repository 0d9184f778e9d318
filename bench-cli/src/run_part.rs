//! `shardlab run --part I/K`: the first two steps of a run cut into parts (see
//! [`engine::part`]): counting the events of the part's files (and learning the warm-up, in
//! part 0), then, with `--counts`, replaying the part's share at its positions in the whole
//! trace and writing its accumulators' state for `shardlab merge`.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use engine::changing::LayoutRunState;
use engine::replay::{
    build_fixed, empty_partial, learn_warmup, refuse_parts, replay_layouts, replay_part, Warmup,
};
use workloads::KeyType;

use crate::cli::RunArgs;
use crate::inputs::{Input, TraceInput};
use crate::progress::ReplayProgress;
use crate::run::{replay_config, RunSetup};
use crate::usage::usage;
use engine::part::{
    check_set, config_hash, expand_dirs, first_positions, layouts_file, share, state_file,
    write_binary, Binding, OwnedFile, PartFile, PartIndex, PartialHeader, Stage, HEADER_FILE,
    WARMUP_FILE,
};

/// Runs step 1 (`--part I/K`) or step 2 (`--part I/K --counts DIRS`) of part `part` of `args`.
pub fn run_part(args: &RunArgs, part: PartIndex) -> Result<()> {
    if args.input.trace.is_empty() || !args.input.workloads.is_empty() {
        return Err(usage(
            "--part cuts a trace given as files (--trace, repeatable or a glob); write a \
             synthetic workload to files with `shardlab gen` first",
        ));
    }
    if args.output.out.is_none() {
        return Err(usage(
            "--part needs --out DIR: the directory of this part's partial result",
        ));
    }
    if let Some(key) = crate::inputs::Candidate::of(&args.read) {
        return Err(usage(format!(
            "--part cannot cut a multi-column trace keyed by the candidate '{key}'; run it \
             whole"
        )));
    }
    let files = workloads::trace::files::expand(&args.input.trace).map_err(usage)?;
    let sizes = files
        .iter()
        .map(|f| {
            std::fs::metadata(f)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len())
                .ok_or_else(|| {
                    usage(format!(
                        "trace file '{}' is not a readable regular file; the files of a run cut \
                         into parts must be",
                        f.display()
                    ))
                })
        })
        .collect::<Result<Vec<u64>>>()?;
    let mine = Share {
        part,
        files: &files,
        range: share(&sizes, part),
    };
    if args.counts.is_empty() {
        count(args, &mine)
    } else {
        replay(args, &mine)
    }
}

/// A part's share of the trace's files.
struct Share<'a> {
    part: PartIndex,
    /// Every file of the trace, in order.
    files: &'a [PathBuf],
    /// The positions of the part's files.
    range: std::ops::Range<usize>,
}

impl Share<'_> {
    /// The part's files opened as a trace (labelled as the whole trace), `None` when empty.
    fn open(&self, args: &RunArgs) -> Result<Option<TraceInput>> {
        TraceInput::open_share(&args.input, &args.read, self.files, self.range.clone())
    }
}

/// Step 1: counts the events of each file of the share (checksumming them beside), learns the
/// warm-up in part 0, and writes the header.
fn count(args: &RunArgs, mine: &Share<'_>) -> Result<()> {
    let sums = crate::inputs::spawn_checksums(mine.files[mine.range.clone()].to_vec());
    let mut read = Vec::new();
    let mut key_type = None;
    for position in mine.range.clone() {
        let path = &mine.files[position];
        let (opts, opened) = args.read.open_checked(path, args.input.format)?;
        let first = *key_type.get_or_insert(opened.key_type);
        workloads::trace::files::check_key_type(path, opened.key_type, first)?;
        let mut source = opened.source;
        // A plain binary file of whole records (skipping nothing) holds size / record size
        // events: no need to read it here. Step 2 reads it, reports any bad record, and
        // checks that it replayed as many events as counted.
        let events =
            match source.len_hint() {
                Some(events) => events,
                None => workloads::trace::stream(source.as_mut(), |_| {
                    Ok::<_, workloads::WorkloadError>(())
                })?,
            };
        read.push(PartFile {
            path: path.display().to_string(),
            position,
            bytes: 0,
            xxh3_128: String::new(),
            events,
            format: opened.format.name().to_string(),
            invalid_records_skipped: opts.invalid.skips().then_some(opts.invalid.log.skipped()),
        });
        crate::inspect::report_skipped(&opts.invalid.log);
    }
    let sums = sums
        .join()
        .map_err(|_| anyhow::anyhow!("the checksum thread panicked"))?
        .context("cannot checksum the trace")?;
    for (file, sum) in read.iter_mut().zip(sums) {
        file.bytes = sum.bytes;
        file.xxh3_128 = sum.xxh3_128;
    }
    let found = key_type;
    let key_type =
        key_type.unwrap_or_else(|| KeyType::from_name(&args.read.key_type).unwrap_or_default());
    let unit = read.first().and_then(|f| {
        workloads::trace::TraceFormat::from_name(&f.format).and_then(|f| f.time_unit_ns())
    });
    let setup = RunSetup::new(args, key_type, unit)?;
    let out = args.output.claim_staged("")?;
    let dir = out.path().to_path_buf();
    crate::interrupt::stage(&dir, || out.create())?;
    let mut owned = Vec::new();
    if mine.part.index == 0 {
        // The warm-up as the single run learns it: at the start of the whole trace.
        let whole = TraceInput::open(&args.input, &args.read)?
            .context("no trace to learn the warm-up from")?;
        let input = Input::of_trace(&whole);
        let progress = ReplayProgress::new(args.output.quiet);
        let on_progress = progress.callback(&input.label);
        let (warmup, _) = learn_warmup(
            (input.open)()?,
            &setup.schemes,
            setup.base.warmup_fraction,
            &on_progress,
        )?;
        owned.push(write_binary(
            &dir,
            &binding(args, mine, Stage::Counted, WARMUP_FILE)?,
            &warmup,
        )?);
    }
    let header = header(args, mine, Stage::Counted, read, found, None, owned)?;
    write_header(&out, &header)?;
    let path = crate::interrupt::unstage(&dir, || out.commit())?;
    if !args.output.quiet {
        println!(
            "part {} counted: {} file(s), {} events: {}; next, every part: the same command \
             with --counts and the K count directories",
            mine.part,
            header.files.len(),
            header.events(),
            path.display()
        );
    }
    Ok(())
}

/// Step 2: replays the share at its positions in the whole trace, for every shard count of
/// the run, and writes each replay's state.
fn replay(args: &RunArgs, mine: &Share<'_>) -> Result<()> {
    let dirs = expand_dirs(&args.counts).map_err(usage)?;
    let counted = dirs
        .into_iter()
        .map(|dir| Ok((dir.clone(), PartialHeader::read(&dir)?)))
        .collect::<Result<Vec<_>>>()?;
    let counted = check_set(counted, Stage::Counted)?;
    let (count_dir, counts) = &counted[mine.part.index as usize];
    let expected = config_hash(&serde_json::to_value(args)?);
    if counts.config_hash != expected || counts.part != mine.part {
        bail!(
            "'{}' counted part {} of another run (other options); give --counts the count \
             directories of this run's parts (run --part I/K with the same options)",
            count_dir.display(),
            counts.part
        );
    }
    let first_event = first_positions(&counted)[mine.part.index as usize];
    let warmup: Warmup = engine::part::read_binary(&counted[0].0, &counted[0].1, WARMUP_FILE)?;
    // Part 0 always holds the first file: its key type is the trace's.
    let key_type = trace_key_type(&counted[0].1)?;
    let setup = RunSetup::new(args, key_type, trace_unit_ns(&counted[0].1))?;
    let trace = mine.open(args)?;
    let input = trace.as_ref().map(Input::of_trace);
    let share_events = counts.events();
    // The measured events of the share: those past the warm-up.
    let in_warmup = warmup.events.saturating_sub(first_event).min(share_events);
    let out = args.output.claim_staged("")?;
    let dir = out.path().to_path_buf();
    crate::interrupt::stage(&dir, || out.create())?;
    let pool = args.threads.pool()?;
    let progress = ReplayProgress::new(args.output.quiet);
    let label = format!("part {}", mine.part);
    let on_progress = progress.callback(&label);
    let mut owned = Vec::new();
    for (index, (n, targets)) in setup.sweep.iter().enumerate() {
        let (cfg, _) = replay_config(&setup.base, *n, targets);
        let built = build_fixed(&setup.schemes, &cfg, &warmup, key_type)?;
        refuse_parts(&built).map_err(crate::usage::config_is_usage)?;
        let partial = match &input {
            None => empty_partial(&built.parts, &cfg),
            Some(input) => pool.install(|| {
                replay_part(
                    (input.open)()?,
                    &built,
                    &cfg,
                    warmup.events,
                    first_event,
                    &on_progress,
                )
            })?,
        };
        if partial.events != share_events - in_warmup {
            bail!(
                "part {}'s files hold {} events past the warm-up, but {} when they were \
                 counted ('{}'): a file changed in between; count the parts again",
                mine.part,
                partial.events,
                share_events - in_warmup,
                count_dir.display()
            );
        }
        owned.push(write_binary(
            &dir,
            &binding(args, mine, Stage::Replayed, &state_file(index))?,
            &partial.state()?,
        )?);
    }
    if mine.part.index == 0 && setup.schemes.iter().any(|s| s.is_changing()) {
        let whole_events = counted.iter().map(|(_, h)| h.events()).sum();
        owned.extend(replay_changing(
            args,
            mine,
            (&setup, &dir),
            &warmup,
            whole_events,
            &progress,
        )?);
    }
    progress.clock().finish();
    if mine.part.index == 0 {
        owned.push(write_binary(
            &dir,
            &binding(args, mine, Stage::Replayed, WARMUP_FILE)?,
            &warmup,
        )?);
    }
    let header = header(
        args,
        mine,
        Stage::Replayed,
        counts.files.clone(),
        trace.as_ref().map(|t| t.key_type),
        Some(warmup.events),
        owned,
    )?;
    write_header(&out, &header)?;
    let path = crate::interrupt::unstage(&dir, || out.commit())?;
    if !args.output.quiet {
        println!(
            "part {} replayed: events {} to {} of the trace: {}; next: shardlab merge with \
             the K part directories",
            mine.part,
            first_event,
            first_event + share_events,
            path.display()
        );
    }
    Ok(())
}

/// The key type of the trace: that of part 0's files.
pub fn trace_key_type(part0: &PartialHeader) -> Result<KeyType> {
    part0
        .key_type
        .as_deref()
        .and_then(KeyType::from_name)
        .context("part 0 names no key type; count it again")
}

/// The nanoseconds of the timestamp unit of part 0's trace format, when it has its own.
pub fn trace_unit_ns(part0: &PartialHeader) -> Option<u64> {
    let format = part0.files.first()?.format.as_str();
    workloads::trace::TraceFormat::from_name(format)?.time_unit_ns()
}

/// Part 0's replay of the whole trace (`whole_events` events) through the run's changing
/// layouts, which change with every event before them: one pass per shard count, each
/// written as a [`layouts_file`] in part 0's directory `dir`.
fn replay_changing(
    args: &RunArgs,
    mine: &Share<'_>,
    (setup, dir): (&RunSetup, &std::path::Path),
    warmup: &Warmup,
    whole_events: u64,
    progress: &ReplayProgress,
) -> Result<Vec<OwnedFile>> {
    let whole = TraceInput::open(&args.input, &args.read)?
        .context("no trace to replay the changing layouts on")?;
    let input = Input::of_trace(&whole);
    let label = format!("part {}: changing layouts", mine.part);
    let on_progress = progress.callback(&label);
    let mut owned = Vec::new();
    for (index, (n, targets)) in setup.sweep.iter().enumerate() {
        let (cfg, _) = replay_config(&setup.base, *n, targets);
        let runs = replay_layouts(
            (input.open)()?,
            &setup.schemes,
            &cfg,
            warmup.events,
            &on_progress,
        )?;
        if let Some(run) = runs.iter().find(|r| r.events != whole_events) {
            bail!(
                "the trace holds {} events for '{}', but {whole_events} when its parts were \
                 counted: a file changed in between; count the parts again",
                run.events,
                run.label
            );
        }
        let states: Vec<LayoutRunState> = runs.iter().map(|r| r.state()).collect();
        owned.push(write_binary(
            dir,
            &binding(args, mine, Stage::Replayed, &layouts_file(index))?,
            &states,
        )?);
    }
    Ok(owned)
}

/// The [`Binding`] of part `mine`'s file `name` at `stage`.
fn binding(args: &RunArgs, mine: &Share<'_>, stage: Stage, name: &str) -> Result<Binding> {
    Ok(Binding {
        part: mine.part,
        config_hash: config_hash(&serde_json::to_value(args)?),
        stage,
        name: name.to_string(),
    })
}

/// The header of part `mine` at `stage`, holding `files`, owning `owned`, sealed.
fn header(
    args: &RunArgs,
    mine: &Share<'_>,
    stage: Stage,
    files: Vec<PartFile>,
    key_type: Option<KeyType>,
    warmup_events: Option<u64>,
    owned: Vec<OwnedFile>,
) -> Result<PartialHeader> {
    let mut header = PartialHeader {
        format_version: engine::part::PARTIAL_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        config_hash: config_hash(&serde_json::to_value(args)?),
        stage,
        part: mine.part,
        command_line: std::env::args().collect(),
        key_type: key_type.map(|k| k.name().to_string()),
        label: crate::inputs::trace_label(&args.input, &args.read, mine.files)?,
        warmup_events,
        trace_files: mine.files.len(),
        files,
        owned,
        seal: String::new(),
    };
    header.reseal()?;
    Ok(header)
}

/// Writes `header` as the partial result's [`HEADER_FILE`].
fn write_header(out: &reports::output::OutputDir, header: &PartialHeader) -> Result<()> {
    out.write_file(HEADER_FILE, &header.to_json()?)?;
    Ok(())
}
