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
    judge(name, compared, &d, outcome)
}

/// [`finding`] for the cross-checks `compared` and their differences `d`.
fn judge(name: &str, compared: u64, d: &[String], outcome: &mut Outcome) -> String {
    if !d.is_empty() && matches!(outcome, Outcome::Holds { .. }) {
        *outcome = Outcome::Incomplete {
            reason: reason(d.len()),
            complete_depth: 0,
        };
    }
    describe(name, compared, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A difference makes a search's `holds` incomplete and is named; a counterexample is
    /// left alone, and so is `holds` when there is no difference. (The global switch and
    /// record are left alone: tests of this binary run at once.)
    #[test]
    fn a_difference_makes_a_search_incomplete() {
        let d = vec!["a claim that failed".to_string()];
        let mut o = Outcome::Holds { exhausted: true };
        let text = judge("m", 7, &d, &mut o);
        assert!(
            text.contains("1 differences (1 distinct) in 7 cross-checks"),
            "{text}"
        );
        assert!(text.contains("\n  a claim that failed"), "{text}");
        assert!(
            matches!(&o, Outcome::Incomplete { reason, complete_depth: 0 }
                if reason.contains("holds is not established")),
            "{o:?}"
        );
        let mut o = Outcome::Holds { exhausted: false };
        let text = judge("m", 7, &[], &mut o);
        assert!(text.ends_with("7 cross-checks, no difference"), "{text}");
        assert!(matches!(o, Outcome::Holds { exhausted: false }));
        let mut o = Outcome::Incomplete {
            reason: "time".into(),
            complete_depth: 3,
        };
        judge("m", 7, &d, &mut o);
        assert!(matches!(
            o,
            Outcome::Incomplete {
                complete_depth: 3,
                ..
            }
        ));
    }
}
