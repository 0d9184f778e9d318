//! Every chart of a sample run: the SVG parses and carries its series and legend, the PNG
//! decodes at the SVG's size, is not blank and has text in its title band.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::{Variant, SCHEMES};

fn rendered_run() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    common::write_run(&run, Variant::MonotonicHotSpot);
    reports::report::render_dir(&run).unwrap();
    (dir, run)
}

fn chart_stems(run: &Path) -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(run.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    stems.sort();
    stems
}

/// Texts and element counts of one SVG.
struct Svg {
    width: u32,
    height: u32,
    texts: Vec<String>,
    polylines: usize,
    rects: usize,
}

fn parse_svg(path: &Path) -> Svg {
    let text = std::fs::read_to_string(path).unwrap();
    let doc =
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{}", path.display());
    let count = |name: &str| {
        doc.descendants()
            .filter(|n| n.tag_name().name() == name)
            .count()
    };
    Svg {
        width: root.attribute("width").unwrap().parse().unwrap(),
        height: root.attribute("height").unwrap().parse().unwrap(),
        texts: doc
            .descendants()
            .filter(|n| n.tag_name().name() == "text")
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .collect(),
        polylines: count("polyline") + count("path"),
        rects: count("rect"),
    }
}

#[test]
fn every_chart_is_drawn_in_both_formats() {
    let (_tmp, run) = rendered_run();
    assert_eq!(chart_stems(&run), common::expected_chart_stems());
    for stem in chart_stems(&run) {
        assert!(
            run.join(format!("charts/{stem}.png")).is_file(),
            "{stem}.png missing"
        );
    }
}

#[test]
fn every_svg_parses_and_has_a_title_and_axis_labels_with_units() {
    let (_tmp, run) = rendered_run();
    for stem in chart_stems(&run) {
        let svg = parse_svg(&run.join(format!("charts/{stem}.svg")));
        assert!(svg.texts.len() > 5, "{stem}: {:?}", svg.texts);
        assert!(
            svg.texts.iter().any(|t| t.contains('(') && t.contains(')')),
            "{stem}: no axis label with a unit: {:?}",
            svg.texts
        );
    }
}

#[test]
fn scheme_charts_have_a_series_and_a_legend_entry_per_scheme() {
    let (_tmp, run) = rendered_run();
    // Line charts: one line per scheme in every panel, plus the reference line.
    for (stem, panels) in [
        ("hottest_over_time-4-sequential-scans-0.05", 1),
        ("skew_sweep", 4),
        ("shard_sweep", 4),
    ] {
        let svg = parse_svg(&run.join(format!("charts/{stem}.svg")));
        for scheme in SCHEMES {
            assert!(
                svg.texts.iter().any(|t| t == scheme),
                "{stem}: no legend entry '{scheme}'"
            );
        }
        assert!(
            svg.texts.iter().any(|t| t.starts_with("fair share")),
            "{stem}: no reference entry"
        );
        assert!(
            svg.polylines >= panels * (SCHEMES.len() + 1),
            "{stem}: {} lines",
            svg.polylines
        );
    }
    // The skew sweep has one panel per shard count of the sweep (4 shard counts x 3 skews).
    let skew = parse_svg(&run.join("charts/skew_sweep.svg"));
    for n in common::SHARD_COUNTS {
        assert!(
            skew.texts
                .iter()
                .any(|t| t.ends_with(&format!("(N = {n})"))),
            "skew sweep lacks N = {n}"
        );
    }
    // Bars: one per shard and scheme; heatmap: one cell per shard, window and scheme.
    let bars = parse_svg(&run.join("charts/load_bars-1-zipf-keys-1000-s-0.6-scans-0.05.svg"));
    assert!(bars.rects >= 4 * 4, "{} bars", bars.rects);
    let heat = parse_svg(&run.join("charts/load_heatmap-1-zipf-keys-1000-s-0.6-scans-0.05.svg"));
    assert!(
        heat.rects >= 4 * 4 * common::WINDOWS,
        "{} cells",
        heat.rects
    );
    let latency = parse_svg(&run.join("charts/latency.svg"));
    for p in ["p50", "p99", "p99.9"] {
        assert!(
            latency.texts.iter().any(|t| t == p),
            "latency legend lacks {p}"
        );
    }
    assert!(latency.rects >= 4 * 4 * 3, "{} latency bars", latency.rects);
    let splits = parse_svg(&run.join("charts/split_balance.svg"));
    for f in ["median", "sampled", "reservoir", "optimal"] {
        assert!(
            splits
                .texts
                .iter()
                .any(|t| t.starts_with(&format!("{f} ("))),
            "split chart lacks {f}"
        );
    }
    let remap = parse_svg(&run.join("charts/remap-4-sequential-scans-0.05.svg"));
    assert!(
        remap.texts.iter().any(|t| t.starts_with("ideal")),
        "remap chart lacks the ideal line"
    );
}

#[test]
fn every_png_decodes_at_the_svg_size_is_not_blank_and_has_text() {
    let (_tmp, run) = rendered_run();
    for stem in chart_stems(&run) {
        let svg = parse_svg(&run.join(format!("charts/{stem}.svg")));
        let file = std::fs::File::open(run.join(format!("charts/{stem}.png"))).unwrap();
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (svg.width, svg.height), "{stem}");
        assert_eq!(info.color_type, png::ColorType::Rgb, "{stem}");
        let pixels: Vec<[u8; 3]> = buf[..info.buffer_size()]
            .chunks(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        let colours: HashSet<[u8; 3]> = pixels.iter().copied().collect();
        assert!(colours.len() > 8, "{stem}: only {} colours", colours.len());
        // The title is drawn with the embedded font: its band must hold dark glyph pixels.
        let title_band = &pixels[..(info.width * 40) as usize];
        let dark = title_band
            .iter()
            .filter(|p| p.iter().all(|&c| c < 80))
            .count();
        assert!(
            dark > 200,
            "{stem}: title band has {dark} dark pixels; is the font rendering?"
        );
    }
}
