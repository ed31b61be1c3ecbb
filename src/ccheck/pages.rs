//! The page-level invariants on the C world, from the harness's ghost pages (cglue/pages.c)
//! and the rmap walks it ran on the kernel's own interval-tree iterators
//! (`mapping_rmap_tree_iter_first/next()`, `anon_rmap_tree_iter_first/next()`, as
//! `rmap_walk_file()` and `rmap_walk_anon()` run them). The names and rules are the model's
//! (`src/check/pages.rs`):
//!
//! - `rmap-complete`: the walk from each mapped folio returns, for every pte mapping it, a VMA
//!   of that mm whose address for the folio's index is the pte's; a folio whose anon_vma was
//!   freed while the folio is mapped is a use-after-free (no walk can start from it);
//! - `rmap-exact`: a walk returns each VMA once, a live one (listed by an mm), mapping the
//!   index, of the folio's file (and not anonymous) or of its anon_vma's hierarchy;
//! - `mapping-preserved`: each pte lies in a VMA of its mm whose pgoff arithmetic gives the
//!   folio's index (and whose file is the folio's); the glue itself records a pte a call
//!   changed outside the range that call may change (a `C violation mapping-preserved:` note);
//! - `walker-complete`, `vma-lock-stable`, and `tree-order` / `augment` at a walker
//!   checkpoint: recorded by the glue (cglue/checkpoint.c) at the lock moments inside a call
//!   (notes naming the kernel function and line).

use super::violation::Violation;
use crate::charness::canon::{Raw, RawVma};
use crate::charness::pages::{RawFolio, RawFolioKind};
use crate::invariant::Invariant;
use std::collections::HashMap;

/// The walker checkpoints the glue runs a call at most (cglue/pages.c GLUE_MAX_CHECKPOINTS);
/// a test keeps the two equal.
pub const CHECKPOINTS_PER_CALL: u32 = 64;

/// The invariant of a glue note (`C violation TEXT`), when it is a page or checkpoint one.
pub fn note_invariant(text: &str) -> Option<Invariant> {
    let word = text.split_whitespace().next()?;
    let inv = match word.trim_end_matches(':') {
        "mapping-preserved" => Invariant::MappingPreserved,
        "walker-complete" => Invariant::WalkerComplete,
        "vma-lock-stable" => Invariant::VmaLockStable,
        // a tree found out of order or with a stale rb_subtree_last at a checkpoint
        "tree-order" if text.contains(" at ") => Invariant::TreeOrder,
        "augment" if text.contains(" at ") => Invariant::Augment,
        _ => return None,
    };
    Some(inv)
}

/// Keep the most checkpoints a sequence skipped over the bound (for the run's report).
pub fn count_checkpoints(r: &Raw, over: &std::sync::atomic::AtomicU64) {
    over.fetch_max(r.pages.checkpoints.1, std::sync::atomic::Ordering::Relaxed);
}

fn v(invariant: Invariant, what: String) -> Violation {
    Violation { invariant, what }
}

fn pages(x: &RawVma) -> u64 {
    x.end.saturating_sub(x.start)
}

/// `vma_address()`: where `x` maps the folio's index, if inside it.
fn vma_address(x: &RawVma, f: &RawFolio) -> Option<u64> {
    let base = match f.kind {
        RawFolioKind::Anon { .. } => x.anon_pgoff,
        RawFolioKind::File { .. } => x.pgoff,
    };
    let off = f.index.checked_sub(base)?;
    (off < pages(x)).then_some(x.start + off)
}

fn describe(f: &RawFolio) -> String {
    match f.kind {
        RawFolioKind::Anon { freed: true, .. } => {
            format!("an anon folio (index {}) whose anon_vma is freed", f.index)
        }
        RawFolioKind::Anon { .. } => format!("an anon folio (index {})", f.index),
        RawFolioKind::File { file } => format!("the folio of file#{file} at index {}", f.index),
    }
}

fn vname(mm: usize, x: &RawVma) -> String {
    format!("mm{mm}:[{},{})", x.start, x.end)
}

/// The page-level violations of the C world `r`.
pub fn check(r: &Raw, found: &mut Vec<Violation>) {
    let p = &r.pages;
    let vmas: HashMap<u64, (usize, &RawVma)> = r
        .mms
        .iter()
        .enumerate()
        .flat_map(|(m, mm)| mm.vmas.iter().map(move |x| (x.id, (m, x))))
        .collect();
    let roots: HashMap<u64, u64> = r.anons.iter().map(|a| (a.id, a.root)).collect();
    let mut ptes = p.ptes.clone();
    ptes.sort();
    for &(mm, addr, id) in &ptes {
        let Some(f) = p.folio(id) else {
            found.push(v(
                Invariant::MappingPreserved,
                format!("pte (mm{mm}, address {addr}) maps folio {id}, which the dump lacks"),
            ));
            continue;
        };
        // mapping-preserved: the VMA there maps this folio at this address
        let here = r
            .mms
            .get(mm)
            .and_then(|m| m.vmas.iter().find(|x| x.start <= addr && addr < x.end));
        let why = match (here, &f.kind) {
            (None, _) => Some(format!("no VMA of mm{mm} covers address {addr}")),
            (Some(x), RawFolioKind::File { file }) if x.file != Some(*file) => {
                Some(format!("{} maps another file there", vname(mm, x)))
            }
            (Some(x), _) if vma_address(x, f) != Some(addr) => Some(format!(
                "{} maps index {} there",
                vname(mm, x),
                addr - x.start
                    + match f.kind {
                        RawFolioKind::Anon { .. } => x.anon_pgoff,
                        RawFolioKind::File { .. } => x.pgoff,
                    }
            )),
            _ => None,
        };
        if let Some(why) = why {
            found.push(v(
                Invariant::MappingPreserved,
                format!(
                    "pte (mm{mm}, address {addr}) maps {}, but {why}",
                    describe(f)
                ),
            ));
        }
        // rmap-complete
        match p.walks.get(&id) {
            None | Some(None) => found.push(v(
                Invariant::RmapComplete,
                format!(
                    "pte (mm{mm}, address {addr}) maps {}: a use-after-free, and no rmap walk \
                     can find the pte",
                    describe(f)
                ),
            )),
            Some(Some(walk)) => {
                let hit = walk.iter().any(|id| {
                    vmas.get(id)
                        .is_some_and(|&(m, x)| m == mm && vma_address(x, f) == Some(addr))
                });
                if !hit {
                    let got: Vec<String> = walk
                        .iter()
                        .map(|id| match vmas.get(id) {
                            Some(&(m, x)) => vname(m, x),
                            None => format!("a VMA no mm lists ({id:#x})"),
                        })
                        .collect();
                    found.push(v(
                        Invariant::RmapComplete,
                        format!(
                            "pte (mm{mm}, address {addr}) maps {}; the rmap walk from it finds \
                             {} but not the VMA mapping the pte",
                            describe(f),
                            if got.is_empty() {
                                "nothing".to_string()
                            } else {
                                got.join(", ")
                            }
                        ),
                    ));
                }
            }
        }
    }
    exact(r, &vmas, &roots, found);
}

/// rmap-exact: what each walk returns is what the kernel's walk may return.
fn exact(
    r: &Raw,
    vmas: &HashMap<u64, (usize, &RawVma)>,
    roots: &HashMap<u64, u64>,
    found: &mut Vec<Violation>,
) {
    let p = &r.pages;
    for f in &p.folios {
        let Some(Some(walk)) = p.walks.get(&f.id) else {
            continue;
        };
        if !p.ptes.iter().any(|&(_, _, id)| id == f.id) {
            continue;
        }
        for (i, id) in walk.iter().enumerate() {
            let why = match vmas.get(id) {
                _ if walk[..i].contains(id) => Some("a second time".to_string()),
                None => Some("which no mm lists (freed or detached)".to_string()),
                Some(&(_, x)) if vma_address(x, f).is_none() => {
                    Some(format!("which does not map index {}", f.index))
                }
                Some(&(_, x)) => match f.kind {
                    RawFolioKind::File { file } if x.file != Some(file) || x.anonymous => {
                        Some(format!("which cannot map a page of file#{file}"))
                    }
                    RawFolioKind::Anon { anon_vma, .. } => {
                        let own = x.anon_vma.and_then(|a| roots.get(&a));
                        (own.is_none() || own != roots.get(&anon_vma))
                            .then(|| "whose anon_vma is not in the folio's hierarchy".to_string())
                    }
                    _ => None,
                },
            };
            if let Some(why) = why {
                let name = vmas
                    .get(id)
                    .map_or(format!("VMA {id:#x}"), |&(m, x)| vname(m, x));
                found.push(v(
                    Invariant::RmapExact,
                    format!("the rmap walk from {} returns {name}, {why}", describe(f)),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charness::canon::{RawAnon, RawMm};
    use crate::charness::pages::RawPages;

    /// One anonymous VMA [0, 2) of anon_vma 10 with a page at 1, walked back.
    fn world() -> Raw {
        Raw {
            mms: vec![RawMm {
                map_count: 1,
                vmas: vec![RawVma {
                    id: 1,
                    start: 0,
                    end: 2,
                    anonymous: true,
                    anon_vma: Some(10),
                    ..RawVma::default()
                }],
            }],
            anons: vec![RawAnon {
                id: 10,
                root: 10,
                parent: 10,
                ..RawAnon::default()
            }],
            pages: RawPages {
                folios: vec![RawFolio {
                    id: 0,
                    kind: RawFolioKind::Anon {
                        anon_vma: 10,
                        freed: false,
                    },
                    index: 1,
                }],
                ptes: vec![(0, 1, 0)],
                walks: [(0, Some(vec![1]))].into_iter().collect(),
                checkpoints: (0, 0),
            },
            ..Raw::default()
        }
    }

    fn first(r: &Raw) -> Option<Invariant> {
        let mut f = Vec::new();
        check(r, &mut f);
        f.first().map(|x| x.invariant)
    }

    #[test]
    fn the_checkpoint_bound_is_the_glues() {
        let glue = include_str!("../../cglue/pages.c");
        assert!(
            glue.contains(&format!(
                "#define GLUE_MAX_CHECKPOINTS {CHECKPOINTS_PER_CALL}\n"
            )),
            "cglue/pages.c's bound differs"
        );
    }

    #[test]
    fn each_page_check_fires() {
        assert_eq!(first(&world()), None);
        let mut w = world();
        w.pages.walks.insert(0, Some(vec![]));
        assert_eq!(first(&w), Some(Invariant::RmapComplete));
        let mut w = world();
        w.pages.walks.insert(0, None);
        assert_eq!(first(&w), Some(Invariant::RmapComplete));
        let mut w = world();
        w.pages.walks.insert(0, Some(vec![1, 1]));
        assert_eq!(first(&w), Some(Invariant::RmapExact));
        let mut w = world();
        w.mms[0].vmas[0].anon_pgoff = 1;
        assert_eq!(first(&w), Some(Invariant::MappingPreserved));
        assert_eq!(
            note_invariant("walker-complete at vma_complete (mm/vma.c:3, x): y"),
            Some(Invariant::WalkerComplete)
        );
        assert_eq!(note_invariant("tree-precondition: x"), None);
    }
}
