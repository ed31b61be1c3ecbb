//! HTML building blocks of the report page: escaping, the colours (the
//! trees' SVG uses them too), the inline style sheet and the legend.
//! Everything the page shows from a trace or a model goes through [`esc`].

use super::diff::Change;

/// Fill of red and black nodes, and the outline of changed ones.
pub(crate) const RED_FILL: &str = "#c62828";
pub(crate) const BLACK_FILL: &str = "#212121";
pub(crate) const CHANGED_STROKE: &str = "#ff8c00";

/// `text` with the characters that mean something in HTML (element content and quoted
/// attribute values alike) replaced by entities.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// `<pre>` block of `text`, or `(empty)`.
pub fn pre(text: &str) -> String {
    let body = if text.trim().is_empty() {
        "(empty)"
    } else {
        text
    };
    format!("<pre>{}</pre>\n", esc(body))
}

/// A whole page: `title` (escaped here) and `body` (HTML already) under the style sheet.
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        esc(title),
        style()
    )
}

/// The page's style sheet (no fonts or anything else fetched).
pub fn style() -> String {
    format!(
        "body {{ font-family: sans-serif; margin: 1.5em; color: #111; background: #fff; }}
h1 {{ font-size: 1.4em; }}
h2 {{ font-size: 1.15em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }}
h3 {{ font-size: 1em; margin-bottom: 0.3em; }}
pre, code, td.mono {{ font-family: monospace; font-size: 0.9em; }}
pre {{ background: #f6f6f6; padding: 0.6em; overflow-x: auto; }}
table.head th {{ text-align: left; padding-right: 1em; vertical-align: top; }}
table.steps {{ border-collapse: collapse; }}
table.steps td {{ padding: 0.1em 0.6em; vertical-align: top; }}
table.steps tr.fail td {{ background: #ffe0b2; font-weight: bold; }}
li.fail {{ font-weight: bold; }}
.violation {{ color: #b00020; font-weight: bold; }}
.note {{ background: #fff3cd; border: 1px solid #e0c060; padding: 0.4em 0.7em; }}
.pair {{ display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }}
figure {{ margin: 0; max-width: 100%; overflow-x: auto; }}
figcaption {{ font-size: 0.9em; color: #444; margin-bottom: 0.2em; }}
.legend span.swatch {{ display: inline-block; width: 1.4em; height: 0.9em; vertical-align: middle;
  margin: 0 0.3em 0 1em; border-radius: 3px; }}
.red {{ background: {RED_FILL}; }}
.black {{ background: {BLACK_FILL}; }}
.changed {{ background: #fff; border: 4px solid {CHANGED_STROKE}; box-sizing: border-box; }}
.detached {{ background: #fff; border: 2px dashed #555; box-sizing: border-box; }}
ul.changes {{ font-family: monospace; font-size: 0.9em; }}
"
    )
}

/// The legend of the tree drawings.
pub fn legend() -> String {
    let kinds: Vec<String> = Change::ALL
        .iter()
        .map(|c| {
            if c.tag() == c.name() {
                c.name().to_string()
            } else {
                format!("{} = {}", c.tag(), c.name())
            }
        })
        .collect();
    format!(
        "<p class=\"legend\">\
         <span class=\"swatch red\"></span>red node\
         <span class=\"swatch black\"></span>black node\
         <span class=\"swatch changed\"></span>changed between before the last call and the \
         failure (tag above the node: {}; hover a node for details)\
         <span class=\"swatch detached\"></span>member not reached from the root \
         (dashed lines: links the walk from the root does not follow).<br>\
         Each node: <code>vma#N</code> (or <code>avc#N vma#M</code>) and \
         <code>[start..last] max=subtree_last</code> in pages of the file offset; \
         L and R mark left and right children.</p>\n",
        esc(&kinds.join(", "))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(esc("vma#1 [0..3]"), "vma#1 [0..3]");
    }
}
