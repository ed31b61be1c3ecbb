//! Known findings: differences between the model and the kernel that are understood and
//! named, each with the kernel evidence that explains it (file, kernel version read, what it
//! shows) and a matcher that recognises exactly its own mismatches, so nothing else is excused.
//! One type for every comparison: kdiff (the model against the running kernel,
//! `oracle::known`) and cdiff (the model against the kernel's C, `cdiff::known`) each keep a
//! registry of [`Finding`]s over their own kind of mismatch. This module names nothing else of
//! the crate.

/// Where in the kernel a finding is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// The kernel file, relative to the tree (`mm/mprotect.c`).
    pub file: &'static str,
    /// The kernel version read (`v7.3-rc7`).
    pub version: &'static str,
    /// What the kernel does there that the model does not, in our own words.
    pub what: &'static str,
}

/// A named finding over mismatches of type `M`.
pub struct Finding<M: ?Sized> {
    pub name: &'static str,
    pub evidence: Evidence,
    /// Does it explain this mismatch?
    pub matches: fn(&M) -> bool,
}

/// The name of the first finding of `all` that explains `m`, if one does.
pub fn explain<M: ?Sized>(all: &[Finding<M>], m: &M) -> Option<&'static str> {
    all.iter().find(|f| (f.matches)(m)).map(|f| f.name)
}

impl<M: ?Sized> Finding<M> {
    /// The finding's evidence in one line: `file (version): what`.
    pub fn evidence_line(&self) -> String {
        let e = &self.evidence;
        format!("{} ({}): {}", e.file, e.version, e.what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVEN: Evidence = Evidence {
        file: "mm/example.c",
        version: "v7.3-rc7",
        what: "an even count is understood",
    };

    fn even(n: &u32) -> bool {
        n.is_multiple_of(2)
    }

    fn big(n: &u32) -> bool {
        *n > 100
    }

    const ALL: &[Finding<u32>] = &[
        Finding {
            name: "even",
            evidence: EVEN,
            matches: even,
        },
        Finding {
            name: "big",
            evidence: EVEN,
            matches: big,
        },
    ];

    #[test]
    fn a_finding_explains_only_its_own_mismatches() {
        assert_eq!(explain(ALL, &4), Some("even"));
        assert_eq!(explain(ALL, &101), Some("big"));
        assert_eq!(explain(ALL, &7), None);
        assert_eq!(explain::<u32>(&[], &4), None);
        assert_eq!(
            ALL[0].evidence_line(),
            "mm/example.c (v7.3-rc7): an even count is understood"
        );
    }
}
