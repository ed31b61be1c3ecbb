//! What a violation means on a production kernel, in kernel terms, for the text trace and the
//! reproducer's header: which tree it is about (a file's `i_mmap` tree of VMAs, or an
//! anon_vma's tree of anon_vma_chains, told from the objects the violation names), what the
//! kernel then does without any debug option, and which configuration, if any, reports it.
//!
//! Kernel facts read in v7.3-rc7 (Debian linux-source-7.3 7.3~rc7-1~exp1):
//! - the anon_vma_chain's cached keys are set on insert and compared only by
//!   `anon_rmap_tree_verify()` (mm/interval_tree.c, CONFIG_DEBUG_VM_RB), which `validate_mm()`
//!   (mm/vma.c, CONFIG_DEBUG_VM_MAPLE_TREE) calls for each VMA of one mm at the end of some
//!   VMA operations, as a `WARN_ON_ONCE`; nothing verifies the trees on every insert or remove;
//! - the file rmap walk is `vma_interval_tree_foreach()` over `mapping->i_mmap`, the anonymous
//!   one `anon_vma_interval_tree_foreach()` over `anon_vma->rb_root` (mm/rmap.c), both pruned by
//!   each node's `rb_subtree_last` (include/linux/interval_tree_generic.h).

use crate::invariant::{Consequence, Invariant, Violation};

/// Which rmap tree a violation is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeKind {
    /// A file's `i_mmap`: VMAs, walked by `rmap_walk_file()`.
    File,
    /// An anon_vma's tree of anon_vma_chains, walked by `rmap_walk_anon()`.
    Anon,
    /// Not told by the message.
    Unknown,
}

/// The tree a violation names: the anon tree when it names an anon_vma_chain or an anon_vma,
/// the file tree when it names a mapping.
pub fn tree_kind(v: &Violation) -> TreeKind {
    let m = &v.message;
    if m.contains("avc#") || m.contains("anon_vma#") || m.contains("anon folio") {
        TreeKind::Anon
    } else if m.contains("mapping#") || m.contains("file tree") || m.contains("file#") {
        TreeKind::File
    } else {
        TreeKind::Unknown
    }
}

fn walk_of(k: TreeKind) -> &'static str {
    match k {
        TreeKind::File => "rmap_walk_file() (vma_interval_tree_foreach over mapping->i_mmap)",
        TreeKind::Anon => {
            "rmap_walk_anon() (anon_vma_interval_tree_foreach over anon_vma->rb_root)"
        }
        TreeKind::Unknown => "rmap_walk_file() or rmap_walk_anon()",
    }
}

fn node_of(k: TreeKind) -> &'static str {
    match k {
        TreeKind::File => "vm_area_struct",
        TreeKind::Anon => "anon_vma_chain (and the vm_area_struct it points to)",
        TreeKind::Unknown => "vm_area_struct or anon_vma_chain",
    }
}

/// The ids of `kind` (`vma#3`) in `text`, in order.
fn ids(text: &str, kind: &str) -> Vec<String> {
    text.split(|c: char| c == '{' || c == '}' || c == ',' || c.is_whitespace())
        .filter(|t| t.starts_with(kind))
        .map(str::to_string)
        .collect()
}

/// Whether a `walker-complete` violation (`... finds {A} but {B} map it`) misses a VMA: some
/// VMA of B is not in A. A walk that only finds more than it should misses nothing.
fn walk_misses(v: &Violation) -> bool {
    let m = &v.message;
    match (m.find(" finds "), m.rfind(" but ")) {
        (Some(f), Some(b)) if f < b => {
            let found = ids(&m[f..b], "vma#");
            ids(&m[b..], "vma#").iter().any(|x| !found.contains(x))
        }
        _ => true,
    }
}

/// The consequence class of one violation: its invariant's, except a `walker-complete` whose
/// walk misses nothing (it finds a VMA too many: the rmap tree holds a VMA it must not, ranked
/// with `membership` as a use-after-free).
pub fn consequence_of(v: &Violation) -> Consequence {
    if v.invariant == Invariant::WalkerComplete && !walk_misses(v) {
        return Consequence::UseAfterFree;
    }
    v.invariant.consequence()
}

/// Whether the violation is a mapped anonymous folio whose anon_vma is freed (the model says
/// `its anon_vma#N is freed`, the C `whose anon_vma is freed`).
fn freed_anon_vma_under_folio(v: &Violation) -> bool {
    let m = &v.message;
    m.contains("pte (")
        && (m.contains("whose anon_vma is freed")
            || (m.contains("anon_vma#") && m.contains(" is freed")))
}

/// Whether the violation is a pte mapping an anonymous folio that the anon rmap walk misses.
fn missed_anon_pte(v: &Violation) -> bool {
    matches!(
        v.invariant,
        Invariant::RmapComplete | Invariant::WalkerComplete | Invariant::MappingPreserved
    ) && tree_kind(v) == TreeKind::Anon
        && walk_misses(v)
}

/// What fork() does with a VMA whose anonymous ptes no anon_vma tree leads to (v7.3-rc7
/// mm/memory.c `vma_needs_copy()`: an anonymous VMA's ptes are copied only when it has an
/// anon_vma, since a fault cannot rebuild them).
const FORK_NOTE: &str = "If the VMA has no anon_vma any more, fork() copies none of its ptes \
     (vma_needs_copy() copies an anonymous VMA's page tables only when it has an anon_vma): the \
     child faults in zero-filled pages where the parent's data was.";

/// What a production kernel (no debug options) does after this violation, in one paragraph,
/// told from what the violation names where that says more than its invariant: a folio whose
/// anon_vma is freed, an anonymous pte no walk finds.
pub fn production(v: &Violation) -> String {
    use Invariant as I;
    let k = tree_kind(v);
    let walk = walk_of(k);
    if freed_anon_vma_under_folio(v) {
        return format!(
            "A use-after-free of the anon_vma: a pte still maps the folio while the anon_vma \
             its folio->mapping points at is freed (anon_vmas are SLAB_TYPESAFE_BY_RCU, so the \
             memory may already be another process's anon_vma). The next {walk} of the folio \
             (reclaim's try_to_unmap(), migration, compaction, folio_referenced()) locks and \
             walks that object: it reads freed memory, or another anon_vma's tree, and misses \
             the pte, so the page can be freed under a live mapping. {FORK_NOTE}"
        );
    }
    if missed_anon_pte(v) {
        return format!(
            "{walk} misses a VMA that maps the page: try_to_unmap(), migration and reclaim \
             believe the folio unmapped while a pte still maps it, so the page can be freed or \
             replaced under a live mapping (memory corruption, data loss); folio_referenced() \
             and page_mkclean() miss it too. {FORK_NOTE}"
        );
    }
    if v.invariant == I::WalkerComplete && !walk_misses(v) {
        return format!(
            "{walk} visits a VMA that does not map the page there (the tree holds a node it \
             must not: freed, detached or of another object): a use-after-free when that VMA \
             is freed, else wasted work; it misses no VMA."
        );
    }
    match v.invariant {
        I::CachedKeys => format!(
            "Nothing: the anon_vma_chain's cached start/last exist only under \
             CONFIG_DEBUG_VM_RB and are read only by that check. The tree itself is ordered \
             and pruned by the VMA's current keys, so this violation alone changes no walk; \
             see the consequence search for what the same bug does to {walk}."
        ),
        I::ModelAssert => "A VM_WARN_ON / VM_BUG_ON compiled out without CONFIG_DEBUG_VM: \
             the kernel runs on past the broken condition the assertion names."
            .to_string(),
        I::Augment | I::TreeOrder | I::StaleDescent => format!(
            "The tree's order or a node's rb_subtree_last no longer matches the keys: \
             {walk} prunes or descends on them, so a lookup by page offset can skip a \
             {} that maps the page; later inserts land in the wrong place.",
            node_of(k)
        ),
        I::RbShape => format!(
            "The red-black structure is broken: rebalancing on the next insert or erase in \
             this tree can follow a stale pointer (a crash) or loop, and {walk} can miss nodes."
        ),
        I::TreePrecondition => format!(
            "An interval-tree insert or erase on a {} in the wrong state: rb_erase() of a node \
             that is not in the tree rewrites the pointers of nodes it is not linked to, an \
             insert of a member links it twice; the tree is corrupt (crash, endless loop, or a \
             freed node left reachable).",
            node_of(k)
        ),
        I::Membership => format!(
            "A {} is left in, or missing from, the rmap tree it belongs to: left in after it \
             is freed, the next {walk} dereferences freed memory (use-after-free); missing, \
             the walk skips its mapping.",
            node_of(k)
        ),
        I::RmapExact => format!(
            "{walk} hands back a VMA it must not (freed, twice, or one that cannot map the \
             page): a use-after-free or an unmap/reference count on the wrong VMA."
        ),
        I::WalkerComplete | I::RmapComplete | I::MappingPreserved | I::VmaLockStable => format!(
            "{walk} misses a VMA that maps the page: try_to_unmap(), migration and reclaim \
             believe the folio unmapped while a pte still maps it, so the page can be freed or \
             replaced under a live mapping (memory corruption, data loss); folio_referenced() \
             and page_mkclean() miss it too."
        ),
        I::LockDiscipline => format!(
            "An rmap tree changes without the lock {walk} takes (i_mmap_rwsem, or the anon_vma \
             root's rwsem), or a lock is left held: a concurrent walk can see the tree in the \
             middle of a rotation (crash, missed VMA), or a later locker hangs."
        ),
        I::Deadlock | I::LockOrder => "Two threads can wait on each other's rmap locks: \
             a hang (lockdep reports the order under CONFIG_PROVE_LOCKING)."
            .to_string(),
        I::VmaLayout => "The mm's VMA tree (maple tree) no longer matches the VMAs: find_vma() \
             and the VMA iterators return wrong or overlapping VMAs."
            .to_string(),
        I::ModelFault => "The model stopped at a NULL dereference or a use of a freed object: \
             the kernel would crash or read freed memory there (unless the model itself is \
             wrong; the trace shows the step)."
            .to_string(),
        I::Equivalent | I::FuzzSetup => "No kernel effect by itself.".to_string(),
    }
}

/// Which kernel configuration reports the violation when the reproducer runs, in one sentence.
pub fn which_config(v: &Violation) -> String {
    let k = tree_kind(v);
    if freed_anon_vma_under_folio(v) {
        return "CONFIG_KASAN=y: a slab-use-after-free report on the anon_vma in the next rmap \
             walk of the folio (folio_lock_anon_vma_read() in reclaim or migration, e.g. \
             move_pages(2) of the page); without KASAN nothing reports it."
            .to_string();
    }
    match consequence_of(v) {
        Consequence::DebugOnly if v.invariant == Invariant::CachedKeys => {
            "CONFIG_DEBUG_VM=y with CONFIG_DEBUG_VM_RB=y and CONFIG_DEBUG_VM_MAPLE_TREE=y: \
             validate_mm() at the end of the VMA operation runs anon_rmap_tree_verify() on each \
             anon_vma_chain of the mm's VMAs and warns once (WARN_ON_ONCE in dmesg); nothing \
             checks on every insert or remove."
                .to_string()
        }
        Consequence::DebugOnly => {
            "CONFIG_DEBUG_VM=y: the VM_WARN_ON / VM_BUG_ON prints in dmesg.".to_string()
        }
        Consequence::UseAfterFree => format!(
            "CONFIG_KASAN=y: a use-after-free report of the {} on the next walk of the tree \
             (an rmap walk of a page it maps: reclaim, migration, or a truncate of the file).",
            node_of(k)
        ),
        Consequence::MissedWalk => "No option reports the missed walk itself; CONFIG_DEBUG_VM=y \
             can catch its effects (a folio still mapped after try_to_unmap(), a bad page \
             state when it is freed with a mapcount)."
            .to_string(),
        Consequence::BrokenTree => "Any kernel may crash or hang in the tree code; \
             CONFIG_DEBUG_VM=y with CONFIG_PROVE_LOCKING=y reports lock misuse, and \
             CONFIG_KASAN=y a stale pointer."
            .to_string(),
        Consequence::NoKernelEffect => "None.".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_is_told_from_the_objects_named() {
        let anon = Violation::new(Invariant::CachedKeys, "avc#2 in anon_vma#0: cached [0, 1]");
        let file = Violation::new(Invariant::Augment, "file tree of mapping#0: vma#1 ...");
        assert_eq!(tree_kind(&anon), TreeKind::Anon);
        assert_eq!(tree_kind(&file), TreeKind::File);
        assert!(production(&anon).contains("CONFIG_DEBUG_VM_RB"));
        assert!(production(&file).contains("rmap_walk_file"));
        assert!(!production(&file).contains("anon_vma_interval_tree_foreach"));
        let aug = Violation::new(Invariant::Augment, "tree of anon_vma#0: avc#1 ...");
        assert!(production(&aug).contains("rmap_walk_anon"));
        assert!(!production(&aug).contains("vma_interval_tree_foreach over mapping"));
        assert!(which_config(&anon).contains("validate_mm"));
        assert!(!which_config(&anon).contains("every insert and remove)"));
        let m = Violation::new(Invariant::Membership, "avc#3 of freed vma#1 in anon_vma#0");
        assert!(which_config(&m).contains("KASAN"));
        assert!(which_config(&m).contains("anon_vma_chain"));
    }

    #[test]
    fn a_walk_that_only_finds_too_much_misses_nothing() {
        let extra = Violation::new(
            Invariant::WalkerComplete,
            "file walk of mapping#0 at pgoff 1 finds {vma#0, vma#1} but {vma#1} map it",
        );
        let miss = Violation::new(
            Invariant::WalkerComplete,
            "anon walk of anon_vma#0 at pgoff 1 finds none but {vma#1} map it",
        );
        assert_eq!(consequence_of(&extra), Consequence::UseAfterFree);
        assert_eq!(consequence_of(&miss), Consequence::MissedWalk);
        assert!(production(&extra).contains("misses no VMA"));
        assert!(production(&miss).contains("misses a VMA"));
    }

    #[test]
    fn a_freed_anon_vma_under_a_mapped_folio_is_told_as_a_use_after_free() {
        // the model's and the C's wording of the same violation
        for m in [
            "pte (mm#0, address 3) maps anon folio#0, but its anon_vma#1 is freed: no rmap walk \
             can find the pte",
            "pte (mm0, address 3) maps an anon folio (index 3) whose anon_vma is freed: a \
             use-after-free, and no rmap walk can find the pte",
        ] {
            let v = Violation::new(Invariant::RmapComplete, m);
            assert!(
                production(&v).starts_with("A use-after-free of the anon_vma"),
                "{m}"
            );
            assert!(production(&v).contains("fork()"), "{m}");
            assert!(which_config(&v).contains("slab-use-after-free"), "{m}");
        }
        // an anonymous pte the walk misses: the missed walk, and what fork does
        let miss = Violation::new(
            Invariant::RmapComplete,
            "pte (mm#0, address 1) maps anon folio#0; the walk of anon_vma#0's tree at index 1 \
             finds {} but should find vma#1 of mm#0",
        );
        assert!(production(&miss).contains("misses a VMA"));
        assert!(production(&miss).contains("vma_needs_copy()"));
        // a file pte the walk misses: no fork sentence (a fault rebuilds file ptes)
        let file = Violation::new(
            Invariant::RmapComplete,
            "pte (mm#0, address 1) maps the folio of mapping#0 at 1; the walk of mapping#0's \
             i_mmap at index 1 finds {} but should find vma#1 of mm#0",
        );
        assert!(!production(&file).contains("fork()"));
        assert!(!production(&file).contains("use-after-free of the anon_vma"));
    }

    #[test]
    fn every_invariant_has_a_production_text() {
        for &i in Invariant::ALL {
            let v = Violation::new(i, "x");
            assert!(!production(&v).is_empty());
            assert!(!which_config(&v).is_empty());
        }
    }
}
