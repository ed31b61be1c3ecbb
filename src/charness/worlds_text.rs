//! Two worlds side by side as text: the calls up to the one compared after, then the model's
//! and the C's canonical lines, each line the other world does not have marked `<- differs`
//! (a node whose colour, links or `rb_subtree_last` differ shows on both sides). cdiff's
//! mismatches and the C search's divergences are both written this way.

use crate::world::scenario::Call;
use std::collections::HashMap;
use std::fmt::Write;

fn counts(lines: &[String]) -> HashMap<&str, usize> {
    let mut m = HashMap::new();
    for l in lines {
        *m.entry(l.as_str()).or_insert(0) += 1;
    }
    m
}

fn side(out: &mut String, title: &str, lines: &[String], other: &[String]) {
    let mut left = counts(other);
    let _ = writeln!(out, "  {title}:");
    for l in lines {
        let here = left.get_mut(l.as_str()).filter(|n| **n > 0);
        let mark = match here {
            Some(n) => {
                *n -= 1;
                ""
            }
            None => "   <- differs",
        };
        let _ = writeln!(out, "    {l}{mark}");
    }
}

/// What two worlds are compared after, and how they differ.
pub struct Sides<'a> {
    /// The calls from the initial world.
    pub calls: &'a [Call],
    /// Index of the call after which the worlds are compared.
    pub at: usize,
    pub what: &'a str,
    pub model: &'a [String],
    /// The C's lines; `None` when the harness died.
    pub c: Option<&'a [String]>,
}

/// The two worlds as text under the heading `{head} call N of M: what`.
pub fn text(head: &str, s: &Sides) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{head} call {} of {}: {}",
        s.at + 1,
        s.calls.len(),
        s.what
    );
    let _ = writeln!(out, "  calls:");
    for (i, c) in s.calls.iter().enumerate().take(s.at + 1) {
        let mark = if i == s.at {
            "   <- compared after this call"
        } else {
            ""
        };
        let _ = writeln!(out, "    {}. {c}{mark}", i + 1);
    }
    match s.c {
        None => {
            side(&mut out, "model", s.model, &[]);
            let _ = writeln!(out, "  C: (no world: the harness died)");
        }
        Some(c) => {
            side(&mut out, "model", s.model, c);
            side(&mut out, "C (the kernel's code)", c, s.model);
        }
    }
    out
}
