//! Progress display for runs that can take more than a second: an indicatif spinner on standard
//! error, updated by the searches' progress callbacks, shown only when standard error is a
//! terminal (and not `--quiet`), so logs and pipes stay clean. A breadth-first search (of a
//! model or of the C) reports its [`Progress`] through [`Bar::search`], one line for all.

use crate::checker::Progress;
use std::io::IsTerminal;

/// A spinner line, or nothing.
pub(crate) struct Bar {
    bar: Option<indicatif::ProgressBar>,
}

impl Bar {
    /// A spinner labelled `label` when `enabled` and standard error is a terminal.
    pub fn new(enabled: bool, label: &str) -> Bar {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(std::time::Duration::from_millis(200));
            b.set_message(label.to_string());
            b
        });
        Bar { bar }
    }

    /// Replace the spinner's message.
    pub fn report(&self, line: &str) {
        if let Some(b) = &self.bar {
            b.set_message(line.to_string());
        }
    }

    /// Show a breadth-first search's figures, labelled `label`.
    pub fn search(&self, label: &str, p: &Progress) {
        if self.bar.is_some() {
            self.report(&format!("{label}: {p}"));
        }
    }

    /// Remove the spinner line.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.finish();
    }
}
