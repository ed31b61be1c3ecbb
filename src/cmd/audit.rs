//! `--audit` of `check` and `interleave`: the run is cross-checked (`check::crosscheck`: every
//! incremental tree check against the whole one, every interleaving step's changes against its
//! footprint, every independence claim of the reduction in both orders), and what the audit
//! found is reported. A counterexample stands whatever the audit finds (its steps really run),
//! but `holds` rests on the reduction's footprints and the incremental checks, so a difference
//! turns it into `incomplete`.

use crate::check::crosscheck;
use crate::explore::search::Outcome;
use std::collections::BTreeSet;

/// Start auditing: cross-checking on, the record of differences empty. Returns the count of
/// cross-checks so far, for [`take`].
pub(crate) fn begin() -> u64 {
    crosscheck::take_differences();
    crosscheck::enable();
    crosscheck::compared()
}

/// Stop auditing: the cross-checks since `start` and the differences they found.
pub(crate) fn take(start: u64) -> (u64, Vec<String>) {
    crosscheck::disable();
    let compared = crosscheck::compared() - start;
    (compared, crosscheck::take_differences())
}

/// What the audit of `name` found, as lines for people: the count of cross-checks and, when
/// there are differences, the first ten distinct ones.
pub(crate) fn describe(name: &str, compared: u64, d: &[String]) -> String {
    if d.is_empty() {
        return format!("{name}: audit: {compared} cross-checks, no difference");
    }
    let distinct: BTreeSet<&String> = d.iter().collect();
    let mut out = format!(
        "{name}: audit: {} differences ({} distinct) in {compared} cross-checks:",
        d.len(),
        distinct.len()
    );
    for x in distinct.iter().take(10) {
        out.push_str("\n  ");
        out.push_str(x);
    }
    out
}

/// Why `holds` is not established when the audit found `n` differences.
pub(crate) fn reason(n: usize) -> String {
    format!("the audit found {n} differences: holds is not established; run without the reduction")
}

/// End the audit of a search of `name` begun at `start`: its report, and the outcome made
/// `incomplete` when it held and the audit found a difference.
pub(crate) fn finding(name: &str, start: u64, outcome: &mut Outcome) -> String {
    let (compared, d) = take(start);
    if !d.is_empty() && matches!(outcome, Outcome::Holds { .. }) {
        *outcome = Outcome::Incomplete {
            reason: reason(d.len()),
            complete_depth: 0,
        };
    }
    describe(name, compared, &d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A difference makes a search's `holds` incomplete and is named; a difference-free
    /// audit leaves `holds` alone. (The library's only test that switches cross-checking on;
    /// other tests running meanwhile are cross-checked too, and find no difference.)
    #[test]
    fn a_difference_makes_a_search_incomplete() {
        let start = begin();
        crosscheck::record(Some("a claim that failed".into()));
        let mut o = Outcome::Holds { exhausted: true };
        let text = finding("m", start, &mut o);
        assert!(text.contains("1 differences (1 distinct)"), "{text}");
        assert!(text.contains("\n  a claim that failed"), "{text}");
        assert!(
            matches!(&o, Outcome::Incomplete { reason, complete_depth: 0 } if reason.contains("holds is not established")),
            "{o:?}"
        );
        let start = begin();
        let mut o = Outcome::Holds { exhausted: true };
        let text = finding("m", start, &mut o);
        assert!(text.ends_with("no difference"), "{text}");
        assert!(matches!(o, Outcome::Holds { .. }));
    }
}
