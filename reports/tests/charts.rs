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

/// A text of an SVG with where it is drawn: its box, from its anchor, baseline offset and
/// font size (character widths estimated at 0.6 em, wider than the digits of the font).
#[derive(Debug)]
struct Label {
    text: String,
    x: (f64, f64),
    y: (f64, f64),
}

/// The horizontal texts of an SVG (rotated axis titles left out) with their boxes.
fn labels(path: &Path) -> Vec<Label> {
    let svg = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    doc.descendants()
        .filter(|n| n.tag_name().name() == "text" && n.attribute("transform").is_none())
        .map(|n| {
            let num = |a: &str| n.attribute(a).unwrap_or("0").parse::<f64>().unwrap();
            let (x, y, size) = (num("x"), num("y"), num("font-size"));
            let text = n.text().unwrap_or("").trim().to_string();
            let width = 0.6 * size * text.chars().count() as f64;
            let x = match n.attribute("text-anchor") {
                Some("end") => (x - width, x),
                Some("middle") => (x - width / 2.0, x + width / 2.0),
                _ => (x, x + width),
            };
            let y = match n.attribute("dy") {
                Some("0.76em") => (y, y + size),
                Some("-0.5ex") => (y - size, y),
                _ => (y - size / 2.0, y + size / 2.0),
            };
            Label { text, x, y }
        })
        .collect()
}

/// True for a tick label: a number, with an optional unit sign.
fn is_tick(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || ".,-%×x ".contains(c))
        && text.chars().any(|c| c.is_ascii_digit())
}

#[test]
fn no_two_tick_labels_overlap_in_any_chart() {
    let (_tmp, run) = rendered_run();
    for stem in chart_stems(&run) {
        let ticks: Vec<Label> = labels(&run.join(format!("charts/{stem}.svg")))
            .into_iter()
            .filter(|l| is_tick(&l.text))
            .collect();
        for (i, a) in ticks.iter().enumerate() {
            for b in &ticks[i + 1..] {
                let apart = a.x.1 <= b.x.0 + 1.0
                    || b.x.1 <= a.x.0 + 1.0
                    || a.y.1 <= b.y.0 + 1.0
                    || b.y.1 <= a.y.0 + 1.0;
                assert!(apart, "{stem}: tick labels overlap: {a:?} and {b:?}");
            }
        }
    }
}

#[test]
fn the_latency_axis_is_logarithmic_with_1_2_5_ticks_below_the_fastest_bar() {
    let (_tmp, run) = rendered_run();
    let ticks: Vec<(f64, f64)> = labels(&run.join("charts/latency.svg"))
        .into_iter()
        .filter(|l| is_tick(&l.text) && l.x.1 < 100.0)
        .map(|l| (l.text.parse::<f64>().unwrap(), (l.y.0 + l.y.1) / 2.0))
        .collect();
    assert!(ticks.len() >= 3, "{ticks:?}");
    for &(v, _) in &ticks {
        let mantissa = v / 10f64.powi(v.log10().floor() as i32);
        assert!(
            [1.0, 2.0, 3.0, 5.0]
                .iter()
                .any(|m| (mantissa - m).abs() < 1e-9),
            "tick {v} is not a 1-2-5 value: {ticks:?}"
        );
    }
    // On a log axis equal ratios are equal distances: pixels per decade are the same between
    // any two ticks of the first panel.
    // Ticks are listed bottom to top; the first panel's end where the values fall again.
    let first_panel = ticks
        .windows(2)
        .position(|w| w[1].0 <= w[0].0)
        .map_or(ticks.len(), |i| i + 1);
    let per_decade: Vec<f64> = ticks[..first_panel]
        .windows(2)
        .map(|w| (w[0].1 - w[1].1) / (w[1].0 / w[0].0).log10())
        .collect();
    assert!(per_decade.len() >= 2, "{ticks:?}");
    // Pixel rounding moves each label by up to a pixel.
    for d in &per_decade {
        assert!(
            (d / per_decade[0] - 1.0).abs() < 0.05,
            "not a log axis: {per_decade:?}"
        );
    }
    // The sample's fastest p50 is 14 ns: a tick sits below it.
    assert!(ticks[0].0 < 14.0, "{ticks:?}");
}

#[test]
fn each_scheme_keeps_its_own_marker_and_dash_where_series_coincide() {
    let (_tmp, run) = rendered_run();
    let svg = std::fs::read_to_string(run.join("charts/skew_sweep.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let stroke_of = |tag: &str| -> HashSet<String> {
        doc.descendants()
            .filter(|n| n.tag_name().name() == tag && n.attribute("fill") == Some("none"))
            .filter_map(|n| n.attribute("stroke").map(str::to_string))
            .collect()
    };
    // Hollow markers of different shapes: circles for the first scheme, squares for the
    // second, so one never hides the other.
    let (circles, squares) = (stroke_of("circle"), stroke_of("rect"));
    assert!(
        !circles.is_empty() && !squares.is_empty(),
        "{circles:?} {squares:?}"
    );
    assert!(circles.is_disjoint(&squares), "{circles:?} {squares:?}");
    let colours: Vec<String> = (0..SCHEMES.len())
        .map(|i| {
            let c = reports::charts::style::color(i);
            format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
        })
        .collect();
    let dashes: Vec<_> = (0..SCHEMES.len())
        .map(|i| reports::charts::style::dash_of(reports::charts::style::color(i)))
        .collect();
    for (i, d) in dashes.iter().enumerate() {
        assert!(
            !dashes[..i].contains(d),
            "schemes share a dash pattern: {dashes:?}"
        );
    }
    assert!(circles.contains(&colours[0]) && squares.contains(&colours[1]));
}

#[test]
fn remap_marks_measured_counts_only_and_one_scan_length_is_bars_per_scheme() {
    let (_tmp, run) = rendered_run();
    // Remap: the schemes are markers only; the one line is the dashed ideal.
    let remap =
        std::fs::read_to_string(run.join("charts/remap-4-sequential-scans-0.05.svg")).unwrap();
    let doc = roxmltree::Document::parse(&remap).unwrap();
    for i in 0..SCHEMES.len() {
        let c = reports::charts::style::color(i);
        let colour = format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        // A marker spans at most 12 px; a line between two counts spans more.
        let widest = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "polyline" && n.attribute("stroke") == Some(&colour))
            .map(|n| {
                let xs: Vec<f64> = n
                    .attribute("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .filter_map(|p| p.split(',').next()?.parse().ok())
                    .collect();
                let (lo, hi) = reports::charts::style::bounds(xs.into_iter());
                hi - lo
            })
            .fold(0.0f64, f64::max);
        assert!(
            widest <= 14.0,
            "remap draws a line for scheme {i} ({widest} px)"
        );
    }
    // Scan fan-out with one scan length: the schemes name the bars on the x axis.
    let fanout = parse_svg(&run.join("charts/scan_fanout.svg"));
    let under_bars = fanout
        .texts
        .iter()
        .filter(|t| SCHEMES.contains(&t.as_str()))
        .count();
    assert!(under_bars >= 2 * SCHEMES.len(), "{:?}", fanout.texts);
    assert!(
        fanout.texts.iter().all(|t| t != "99" && t != "101"),
        "{:?}",
        fanout.texts
    );
}
