//! Known findings of the C search: a kernel WARN that fires only because the harness's call
//! is outside what its kernel caller ever passes. Each is named with the kernel evidence. The
//! WARN does not fail the search: the call's successor is a world the kernel's callers never
//! make, so it is counted, named in the report and not explored further. Only the exact WARN
//! after the exact call is recognised.

/// A known finding.
pub struct Known {
    pub name: &'static str,
    /// The harness request it follows (its first word).
    pub after: &'static str,
    /// The WARN's condition text as the glue records it.
    pub cond: &'static str,
    pub evidence: &'static str,
}

/// Every known finding.
pub const ALL: &[Known] = &[Known {
    name: "shift-down-unfaulted-stack",
    after: "shift_down",
    cond: "pgoff != vma->vm_start >> 12",
    evidence: "mm/vma.h assert_sane_pgoff() (v7.3-rc7) warns when an anonymous VMA with no \
               anon_vma and no file is given a pgoff other than its start page; \
               relocate_vma_down() (mm/vma_exec.c) keeps the stack's pgoff while it moves it. \
               Assumed, from fs/exec.c (not part of the trees the harness reads): the stack has \
               an anon_vma by then, because get_arg_page() faulted the argument pages in before \
               setup_arg_pages() calls relocate_vma_down(), so the WARN cannot fire in exec; the \
               harness's shift_down, offered on any anonymous VMA, reaches it on one never \
               faulted",
}];

/// The known finding a WARN note (`C warn FILE:LINE COND`) after request `req` is, if any.
pub fn tolerated_warn(req: &str, note: &str) -> Option<&'static str> {
    let first = req.split_whitespace().next().unwrap_or("");
    ALL.iter()
        .find(|k| k.after == first && note.ends_with(k.cond) && note.contains("mm/vma.h:"))
        .map(|k| k.name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_exact_warn_after_the_exact_call() {
        let n = "C warn ../../../mm/vma.h:277 pgoff != vma->vm_start >> 12";
        assert_eq!(
            super::tolerated_warn("shift_down 0 1 1", n),
            Some("shift-down-unfaulted-stack")
        );
        assert_eq!(super::tolerated_warn("mprotect 0 1 2 0", n), None);
        assert_eq!(
            super::tolerated_warn("shift_down 0 1 1", "C warn ../../../mm/vma.c:9 x"),
            None
        );
    }
}
