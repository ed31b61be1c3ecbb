//! Source locations, the set of loaded source files, and diagnostics rendered in the
//! `file:line:col: error: message` form with the offending line and a caret under the column.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A position in a loaded model file: index into the [`SourceMap`], 1-based line and column
/// (columns count characters).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct SrcLoc {
    pub file: u16,
    pub line: u32,
    pub col: u32,
}

/// One loaded file: the name diagnostics use and its full text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// Every file a program was loaded from, indexed by `SrcLoc::file`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file and returns its index.
    pub(crate) fn add(&mut self, name: &str, text: &str) -> u16 {
        self.files.push(SourceFile {
            name: name.to_string(),
            text: text.to_string(),
        });
        (self.files.len() - 1) as u16
    }

    /// The files in load order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The display name of a file ("?" for an unknown index).
    pub fn name(&self, file: u16) -> &str {
        self.files
            .get(file as usize)
            .map(|f| f.name.as_str())
            .unwrap_or("?")
    }

    /// The text of one line (1-based), without its line terminator; empty when out of range.
    pub(crate) fn line_text(&self, file: u16, line: u32) -> &str {
        self.files
            .get(file as usize)
            .and_then(|f| f.text.lines().nth(line.saturating_sub(1) as usize))
            .unwrap_or("")
    }

    /// Builds a diagnostic at `loc`, capturing the file name and the source line.
    pub(crate) fn diag(&self, loc: SrcLoc, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: self.name(loc.file).to_string(),
            line: loc.line,
            col: loc.col,
            message: message.into(),
            source_line: self.line_text(loc.file, loc.line).to_string(),
        }
    }
}

/// A load-time error: where, what, and the line it is on. Self-contained so it can be printed
/// without the source map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
    pub source_line: String,
}

/// Longest piece of a source line a diagnostic echoes; longer lines are cut to a window
/// around the column, with `...` marking what was cut.
pub(crate) const MAX_ECHO: usize = 120;

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )?;
        if self.source_line.is_empty() {
            return Ok(());
        }
        let chars: Vec<char> = self.source_line.chars().collect();
        let want = self.col.saturating_sub(1) as usize;
        // the window of the line shown, and the caret's offset in it
        let (from, to) = if chars.len() <= MAX_ECHO {
            (0, chars.len())
        } else {
            let from = want.saturating_sub(MAX_ECHO / 2).min(chars.len());
            (from, (from + MAX_ECHO).min(chars.len()))
        };
        let lead = if from > 0 { "..." } else { "" };
        let tail = if to < chars.len() { "..." } else { "" };
        let shown: String = chars[from..to].iter().collect();
        writeln!(f, "{lead}{shown}{tail}")?;
        // keep tabs so the caret lines up with the text above it
        let mut pad: String = lead.chars().map(|_| ' ').collect();
        pad.extend(
            chars[from..to]
                .iter()
                .take(want.saturating_sub(from))
                .map(|&c| if c == '\t' { '\t' } else { ' ' }),
        );
        while pad.chars().count() < lead.len() + want.saturating_sub(from) {
            pad.push(' ');
        }
        writeln!(f, "{pad}^")
    }
}

/// Renders a list of diagnostics, one block per error, in order.
pub fn render_diagnostics(diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| d.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(line: &str, col: u32) -> String {
        Diagnostic {
            file: "m.rmap".into(),
            line: 1,
            col,
            message: "boom".into(),
            source_line: line.into(),
        }
        .to_string()
    }

    #[test]
    fn a_long_line_is_cut_around_the_column() {
        let long = format!("{}X{}", "a".repeat(100_000), "b".repeat(100_000));
        let r = d(&long, 100_001);
        assert!(r.len() < 400, "{} bytes", r.len());
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[1].starts_with("...") && lines[1].ends_with("..."));
        let caret = lines[2].find('^').unwrap();
        assert_eq!(&lines[1][caret..caret + 1], "X");
    }

    #[test]
    fn no_source_line_means_no_caret() {
        let r = d("", 1);
        assert_eq!(r, "m.rmap:1:1: error: boom\n");
    }

    #[test]
    fn a_short_line_is_shown_whole() {
        let r = d("int x = y;", 9);
        assert_eq!(r, "m.rmap:1:9: error: boom\nint x = y;\n        ^\n");
    }
}
