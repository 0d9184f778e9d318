//! `report.html`: one self-contained page (inline SVG, inline CSS, no network), readable on a
//! laptop and printable. A small inline script marks the page once every chart has rendered,
//! so a headless browser test can check it.

use super::document::{Block, Document};

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1a1a1a; margin: 0 auto;
  max-width: 1060px; padding: 24px; line-height: 1.45; }
h1 { font-size: 1.8em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.88em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.recommendation { border-left: 5px solid #0072b2; background: #f3f8fc; padding: 8px 14px; margin: 1em 0; }
.recommendation p { margin: 0.2em 0 0.4em; font-size: 1.08em; }
figure { margin: 1.2em 0; page-break-inside: avoid; break-inside: avoid; }
figure svg { width: 100%; height: auto; display: block; border: 1px solid #e4e4e4; }
figcaption { font-size: 0.9em; color: #444; margin-top: 0.3em; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { page-break-after: avoid; break-after: avoid; }
  table, .recommendation { page-break-inside: avoid; break-inside: avoid; }
}
"#;

/// Sets `data-report-ready` on the body once loaded, with counts of figures, rendered figures
/// and script errors, and the page's height (for a whole-page screenshot).
const MARKER_SCRIPT: &str = r#"
(function () {
  var errors = 0;
  window.addEventListener('error', function () { errors += 1; });
  window.addEventListener('load', function () {
    var figures = document.querySelectorAll('figure svg');
    var rendered = 0;
    figures.forEach(function (svg) {
      var box = svg.getBoundingClientRect();
      if (box.width > 0 && box.height > 0 && svg.querySelector('text') && svg.querySelector('rect')) { rendered += 1; }
    });
    var broken = 0;
    for (var i = 0; i < document.images.length; i++) {
      var img = document.images[i];
      if (!img.complete || img.naturalWidth === 0) { broken += 1; }
    }
    var body = document.body;
    body.setAttribute('data-figures', String(figures.length));
    body.setAttribute('data-figures-rendered', String(rendered));
    body.setAttribute('data-broken-images', String(broken));
    body.setAttribute('data-script-errors', String(errors));
    body.setAttribute('data-page-height', String(document.documentElement.scrollHeight));
    body.setAttribute('data-report-ready', '1');
  });
})();
"#;

/// Renders the document as a standalone HTML page.
pub fn render(doc: &Document) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!(
        "<title>{}</title>\n<style>{STYLE}</style>\n",
        escape(&doc.title)
    ));
    out.push_str(&format!(
        "<script>{MARKER_SCRIPT}</script>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&doc.title)
    ));
    for block in &doc.blocks {
        block_html(block, &mut out);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn block_html(block: &Block, out: &mut String) {
    match block {
        Block::Heading(level, text) => {
            out.push_str(&format!("<h{level}>{}</h{level}>\n", escape(text)))
        }
        Block::Paragraph(text) => out.push_str(&format!("<p>{}</p>\n", escape(text))),
        Block::List(items) => {
            out.push_str("<ul>\n");
            for item in items {
                out.push_str(&format!("<li>{}</li>\n", escape(item)));
            }
            out.push_str("</ul>\n");
        }
        Block::Table {
            header,
            rows,
            numeric_from,
        } => {
            out.push_str("<table>\n");
            if header.iter().any(|h| !h.is_empty()) {
                out.push_str("<thead><tr>");
                for h in header {
                    out.push_str(&format!("<th>{}</th>", escape(h)));
                }
                out.push_str("</tr></thead>\n");
            }
            out.push_str("<tbody>\n");
            for row in rows {
                out.push_str("<tr>");
                for (i, c) in row.iter().enumerate() {
                    let class = if i >= *numeric_from {
                        " class=\"num\""
                    } else {
                        ""
                    };
                    out.push_str(&format!("<td{class}>{}</td>", escape(c)));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table>\n");
        }
        Block::Recommendation(r) => {
            out.push_str("<div class=\"recommendation\">\n");
            out.push_str(&format!(
                "<p><strong>{}: {}</strong></p>\n<ul>\n",
                escape(&r.title),
                escape(&r.headline)
            ));
            for line in &r.reasoning {
                out.push_str(&format!("<li>{}</li>\n", escape(line)));
            }
            out.push_str("</ul>\n</div>\n");
        }
        Block::Figure(chart) => {
            out.push_str(&format!("<figure id=\"{}\">\n", escape(&chart.file_stem)));
            out.push_str(svg_body(&chart.svg));
            out.push_str(&format!(
                "\n<figcaption>{}</figcaption>\n</figure>\n",
                escape(&chart.caption)
            ));
        }
        Block::Details { summary, blocks } => {
            out.push_str(&format!(
                "<details>\n<summary>{}</summary>\n",
                escape(summary)
            ));
            for block in blocks {
                block_html(block, out);
            }
            out.push_str("</details>\n");
        }
    }
}

/// The `<svg>` element of an SVG document (any XML prolog dropped, so it can be inlined).
fn svg_body(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |i| &svg[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        let doc = Document {
            title: "a<b".into(),
            blocks: vec![Block::Paragraph("x & \"y\"".into())],
        };
        let html = render(&doc);
        assert!(
            html.contains("<title>a&lt;b</title>") && html.contains("<p>x &amp; &quot;y&quot;</p>"),
            "{html}"
        );
    }
}
