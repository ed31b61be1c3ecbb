//! Expected differences between the modelled kernel (v7.3-rc4) and the running one: each has a
//! name, the kernel releases it applies to, and the reason. The comparison counts every use of
//! one by name and prints the counts; nothing is filtered without a name.

/// A kernel release as `uname -r` gives it, reduced to (major, minor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub text: String,
    pub major: u32,
    pub minor: u32,
}

impl Release {
    pub fn parse(text: &str) -> Release {
        let mut it = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap_or(0));
        Release {
            text: text.to_string(),
            major: it.next().unwrap_or(0),
            minor: it.next().unwrap_or(0),
        }
    }

    /// The running kernel's release (uname(2)).
    pub fn running() -> Release {
        // SAFETY: uname fills the struct it is given.
        let mut u: libc::utsname = unsafe { std::mem::zeroed() };
        if unsafe { libc::uname(&mut u) } != 0 {
            return Release::parse("unknown");
        }
        // SAFETY: uname NUL-terminates the release.
        let s = unsafe { std::ffi::CStr::from_ptr(u.release.as_ptr()) };
        Release::parse(&s.to_string_lossy())
    }
}

/// One documented expected difference.
pub struct Expected {
    pub name: &'static str,
    /// The releases it applies to, in words.
    pub kernels: &'static str,
    pub applies: fn(&Release) -> bool,
    pub reason: &'static str,
}

fn any(_: &Release) -> bool {
    true
}

/// A model VMA has an anon_vma while the kernel's VMA has no anonymous page.
pub(crate) const ANON_VMA_WITHOUT_PAGES: Expected = Expected {
    name: "anon-vma-without-pages",
    kernels: "every release",
    applies: any,
    reason: "the kernel does not show a VMA's anon_vma, only its anonymous pages; a VMA keeps \
             its anon_vma after a split, mprotect, munmap or mremap leaves the written page in \
             another VMA (or unmaps it), and a fork gives the child's VMA an anon_vma for every \
             parent VMA that has one. Counted only where no page the calls wrote lies in the VMA",
};

fn before_7_3(r: &Release) -> bool {
    (r.major, r.minor) < (7, 3)
}

/// MREMAP_DONTUNMAP of an unfaulted anonymous VMA: the kernel merges the copy with its own
/// source, where v7.3 keeps them apart.
pub(crate) const DONTUNMAP_SELF_MERGE: Expected = Expected {
    name: "dontunmap-self-merge",
    kernels: "before 7.3 (seen on 6.18)",
    applies: before_7_3,
    reason: "v7.3-rc7's copy_vma() takes keep_source under MREMAP_DONTUNMAP and then never \
             merges the copy of an unfaulted anonymous VMA with that VMA itself, which the \
             model follows (cdiff compares it with the tree's C); 6.18 merges the copy into its \
             adjacent source. Counted where the call is sys_mremap_dontunmap and the kernel's \
             layout is the model's with one adjacent pair of VMAs joined; the sequence is not \
             compared past it",
};

/// Whether `kernel` is `model` with one adjacent pair of VMAs of the same backing joined
/// (`[a, b)` and `[b, c)` as `[a, c)`), every other VMA the same.
pub(crate) fn one_pair_joined(
    model: &[super::layout::LVma],
    kernel: &[super::layout::LVma],
) -> bool {
    if kernel.len() + 1 != model.len() {
        return false;
    }
    (0..kernel.len()).any(|i| {
        let (a, b, k) = (&model[i], &model[i + 1], &kernel[i]);
        let joined = a.end == b.start
            && k.start == a.start
            && k.end == b.end
            && a.backing == k.backing
            && b.backing == k.backing
            && a.writable == k.writable
            && b.writable == k.writable;
        joined
            && model[..i]
                .iter()
                .zip(&kernel[..i])
                .all(|(m, k)| m.same_shape(k))
            && model[i + 2..]
                .iter()
                .zip(&kernel[i + 1..])
                .all(|(m, k)| m.same_shape(k))
    })
}

/// Every expected difference, for the README and `kdiff`'s report.
pub const ALL: &[&Expected] = &[&ANON_VMA_WITHOUT_PAGES, &DONTUNMAP_SELF_MERGE];
