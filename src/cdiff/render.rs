//! A mismatch as text: the calls, then both worlds' canonical lines, each line the other world
//! does not have marked `<- differs` (a node whose colour, links or `rb_subtree_last` differ
//! shows on both sides).

use super::run::Mismatch;
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

/// The mismatch as text, numbered `n`.
pub fn mismatch(n: usize, m: &Mismatch) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nMISMATCH {n}: after call {} of {}: {}",
        m.at + 1,
        m.calls.len(),
        m.what
    );
    let _ = writeln!(out, "  calls:");
    for (i, c) in m.calls.iter().enumerate().take(m.at + 1) {
        let mark = if i == m.at {
            "   <- compared after this call"
        } else {
            ""
        };
        let _ = writeln!(out, "    {}. {c}{mark}", i + 1);
    }
    side(&mut out, "model", &m.model, &m.c);
    if m.c_raw.is_none() {
        let _ = writeln!(out, "  C: (no world: the harness died)");
    } else {
        side(&mut out, "C (the kernel's code)", &m.c, &m.model);
    }
    out
}
