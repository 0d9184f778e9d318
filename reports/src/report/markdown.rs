//! `report.md`: the report as Markdown with links to the PNG charts, for a design document.

use super::document::{Block, Document};

/// Escapes characters that would break a table cell or start Markdown markup.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '\\') {
            out.push('\\');
        }
        out.push(if c == '\n' { ' ' } else { c });
    }
    out
}

/// Renders the document as Markdown; charts link to `charts/<name>.png`.
pub fn render(doc: &Document) -> String {
    let mut out = format!("# {}\n\n", escape(&doc.title));
    for block in &doc.blocks {
        block_md(block, &mut out);
    }
    out
}

fn block_md(block: &Block, out: &mut String) {
    match block {
        Block::Heading(level, text) => {
            out.push_str(&format!(
                "{} {}\n\n",
                "#".repeat(*level as usize),
                escape(text)
            ));
        }
        Block::Paragraph(text) => out.push_str(&format!("{}\n\n", escape(text))),
        Block::List(items) => {
            for item in items {
                out.push_str(&format!("- {}\n", escape(item)));
            }
            out.push('\n');
        }
        Block::Table {
            header,
            rows,
            numeric_from,
        } => {
            let cols = header
                .len()
                .max(rows.iter().map(Vec::len).max().unwrap_or(0));
            let head: Vec<String> = (0..cols)
                .map(|i| header.get(i).map_or(String::new(), |h| escape(h)))
                .collect();
            out.push_str(&format!("| {} |\n", head.join(" | ")));
            let rule: Vec<&str> = (0..cols)
                .map(|i| if i >= *numeric_from { "---:" } else { "---" })
                .collect();
            out.push_str(&format!("| {} |\n", rule.join(" | ")));
            for row in rows {
                let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
                out.push_str(&format!("| {} |\n", cells.join(" | ")));
            }
            out.push('\n');
        }
        Block::Recommendation(r) => {
            out.push_str(&format!(
                "**{}: {}**\n\n",
                escape(&r.title),
                escape(&r.headline)
            ));
            for line in &r.reasoning {
                out.push_str(&format!("- {}\n", escape(line)));
            }
            out.push('\n');
        }
        Block::Figure(chart) => {
            out.push_str(&format!(
                "![{}](charts/{}.png)\n\n*{}*\n\n",
                escape(&chart.title),
                chart.file_stem,
                escape(&chart.caption)
            ));
        }
        // GitHub and most Markdown viewers fold an HTML `<details>` element.
        Block::Details { summary, blocks } => {
            out.push_str(&format!(
                "<details><summary>{}</summary>\n\n",
                escape(summary)
            ));
            for block in blocks {
                block_md(block, out);
            }
            out.push_str("</details>\n\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_cells_cannot_break_the_table() {
        let doc = Document {
            title: "t".into(),
            blocks: vec![Block::Table {
                header: vec!["a".into()],
                rows: vec![vec!["x|y".into()]],
                numeric_from: 1,
            }],
        };
        assert!(render(&doc).contains("| x\\|y |"));
    }
}
