//! `timeline.csv` as a table of numbers, whatever changing layout wrote it: the columns every
//! layout has (the window, its requests, the run it belongs to) and the layout's own, each
//! cell a number (`true`/`false` read as 1/0, anything else, such as an empty cell, as
//! none). The generic layout chart draws the layout's own columns from it, so a new layout's
//! columns are drawn with nothing else touched.

use std::path::Path;

use crate::csv_rows::malformed;
use crate::dynamic_csv::series;
use crate::layout_tables::TextTable;
use crate::ReportError;

/// Columns that say where a row belongs or that every layout has, not what a layout measured.
const ROW_COLUMNS: [&str; 7] = [
    "window", "events", "requests", "measured", "workload", "scheme", "shards",
];

/// `timeline.csv`'s measured columns, by row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimelineTable {
    /// The measured columns, in file order (the busiest node's share among them).
    pub columns: Vec<String>,
    /// One row per window of each run.
    pub rows: Vec<TimelineRow>,
}

/// One window of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimelineRow {
    /// The run it belongs to: workload, scheme and nodes joined by " / ".
    pub series: String,
    /// The window's index.
    pub window: u64,
    /// Its node requests, when written.
    pub requests: Option<u64>,
    /// One value per [`TimelineTable::columns`].
    pub values: Vec<Option<f64>>,
}

impl TimelineTable {
    /// The numbers of `table`, the timeline of the run in `path`; a row without a
    /// whole-number `window` is an error naming its line.
    pub fn of(path: &Path, table: &TextTable) -> Result<TimelineTable, ReportError> {
        let header = &table.columns;
        let at = |name: &str| header.iter().position(|h| h == name);
        let measured: Vec<usize> = (0..header.len())
            .filter(|&i| !ROW_COLUMNS.contains(&header[i].as_str()))
            .collect();
        let (window, workload, scheme, shards) =
            (at("window"), at("workload"), at("scheme"), at("shards"));
        let requests = at("requests");
        let mut rows = Vec::new();
        for (line, record) in (2..).zip(&table.rows) {
            let cell = |i: Option<usize>| i.and_then(|i| record.get(i)).map(|c| c.trim());
            let window = cell(window).and_then(|w| w.parse().ok()).ok_or_else(|| {
                malformed(path, line, "column 'window': not a window index".into())
            })?;
            let text = |i| cell(i).filter(|t| !t.is_empty()).map(str::to_string);
            rows.push(TimelineRow {
                series: series(
                    &text(workload),
                    &text(scheme),
                    cell(shards).and_then(|s| s.parse().ok()),
                ),
                window,
                requests: cell(requests).and_then(|r| r.parse().ok()),
                values: measured
                    .iter()
                    .map(|&i| number(record.get(i).map(String::as_str)))
                    .collect(),
            });
        }
        Ok(TimelineTable {
            columns: measured.iter().map(|&i| header[i].clone()).collect(),
            rows,
        })
    }

    /// The position of column `name` among [`TimelineTable::columns`].
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The columns with a value other than 0 in some row, in file order.
    pub fn varying(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&c| {
                self.rows
                    .iter()
                    .any(|r| r.values[c].is_some_and(|v| v != 0.0))
            })
            .collect()
    }
}

/// A cell as a number: `true`/`false` as 1/0, a finite number as itself, anything else none.
fn number(cell: Option<&str>) -> Option<f64> {
    match cell?.trim() {
        "true" => Some(1.0),
        "false" => Some(0.0),
        text => text.parse::<f64>().ok().filter(|v| v.is_finite()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> TextTable {
        TextTable::parse(Path::new("timeline.csv"), text.as_bytes()).unwrap()
    }

    #[test]
    fn any_layout_s_columns_are_read_as_numbers() {
        let text = "window,rotated,events,requests,measured,hottest_node_share,note,workload,scheme,shards\n\
                    0,true,2000,2000,true,0.4,x,zipf,toy,4\n\
                    1,false,2000,1990,true,,y,zipf,toy,4\n";
        let t = TimelineTable::of(Path::new("timeline.csv"), &table(text)).unwrap();
        assert_eq!(t.columns, ["rotated", "hottest_node_share", "note"]);
        assert_eq!(t.rows[0].series, "zipf / toy / 4 shards");
        assert_eq!(t.rows[1].requests, Some(1990));
        assert_eq!(t.rows[0].values, [Some(1.0), Some(0.4), None]);
        assert_eq!(t.rows[1].values, [Some(0.0), None, None]);
        assert_eq!(t.varying(), [0, 1]);
        let bad = "window,x,workload,scheme,shards\nfirst,1,w,s,2\n";
        let e = TimelineTable::of(Path::new("timeline.csv"), &table(bad)).unwrap_err();
        assert!(e.to_string().contains("timeline.csv:2"), "{e}");
    }
}
