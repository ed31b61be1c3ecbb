//! Page-level invariants over the ghost page tables of `src/world/pages.rs`: the kernel's own
//! promise about the rmap, checked pte by pte.
//!
//! - `rmap-complete`: for every pte `(mm, addr) -> folio`, the rmap walk from the folio
//!   (`rmap_walk_file`: the i_mmap tree of `folio->mapping` at `folio->index`; `rmap_walk_anon`:
//!   the tree of the folio's anon_vma at its index) returns a VMA of that mm that contains
//!   `addr` and whose linear page index at `addr` is the folio's index, so that `vma_address()`
//!   computes the pte's address back.
//! - `rmap-exact`: what a walk from a mapped folio returns is what the kernel's walk may return:
//!   each VMA once (one anon_vma_chain per VMA and anon_vma), live, containing the address it
//!   computes for the folio, of the folio's file (and not an anonymous VMA) for a file folio, and
//!   of the folio's anon_vma hierarchy (its own anon_vma has the same root) for an anonymous one.
//!   The rule follows the kernel: a walk returns every VMA in the tree whose range covers the
//!   index, whether or not it holds a pte for this folio (a VMA that never faulted the page, or
//!   a child that copied it on write, is visited and finds no pte), so VMAs without a pte are
//!   never reported as such.
//! - `mapping-preserved`: after every call, each pte lies in a VMA of its mm whose pgoff
//!   arithmetic gives the folio's index (and whose file is the folio's, for a file folio); and a
//!   call changes only the ptes the kernel's version of it changes (see [`PteChange`]).

use super::membership::vma_live;
use super::{Invariant, Violation};
use crate::exec::host::{ObjKind, Value};
use crate::tree::{interval, TreeObs};
use crate::world::pages::{linear_page_index, PageTable};
use crate::world::scenario::Call;
use crate::world::{AnonKeys, FileKeys, Folio, World};
use std::collections::BTreeMap;

/// What the rmap walk from a folio returns: the VMAs in the order the walk visits them (one
/// entry per tree node, so a VMA linked twice appears twice). `Err` when the walk cannot start.
fn walk(w: &World, f: Folio) -> Result<Vec<u32>, String> {
    let index = w.folio_index(f);
    let mut obs = TreeObs::default();
    match f {
        Folio::File { mapping, .. } => {
            let fk = FileKeys { vmas: &w.vmas };
            let tree = &w.mappings[mapping as usize].i_mmap;
            Ok(interval::query(tree, &fk, index, index, &mut obs))
        }
        Folio::Anon(a) => {
            let av = w.anon_folios[a as usize].anon_vma;
            let anon_vma = &w.anon_vmas[av as usize];
            if anon_vma.freed {
                return Err(format!("its anon_vma#{av} is freed"));
            }
            let ak = AnonKeys {
                vmas: &w.vmas,
                avcs: &w.avcs,
            };
            Ok(
                interval::query(&anon_vma.rb_root, &ak, index, index, &mut obs)
                    .into_iter()
                    .filter_map(|c| w.avcs[c as usize].vma)
                    .collect(),
            )
        }
    }
}

/// `vma_address()`: where `v` maps page `index` of folio `f`, if inside it. A file folio's
/// index is a file page offset; an anonymous folio's is an anonymous page offset
/// (`vma_anon_address()`, v7.3-rc4).
fn vma_address(w: &World, v: u32, f: Folio, index: u64) -> Option<u64> {
    let x = &w.vmas[v as usize];
    let base = x.pgoff_for(matches!(f, Folio::Anon(_)));
    let a = x.vm_start.checked_add(index.checked_sub(base)?)?;
    (a < x.vm_end).then_some(a)
}

/// Every mapped folio with its ptes, in (mm, address) order of first pte.
fn mapped_folios(w: &World) -> BTreeMap<Folio, Vec<(u32, u64)>> {
    let mut out: BTreeMap<Folio, Vec<(u32, u64)>> = BTreeMap::new();
    for (m, mm) in w.mms.iter().enumerate() {
        for (&addr, &f) in &mm.ptes {
            out.entry(f).or_default().push((m as u32, addr));
        }
    }
    out
}

fn found_text(w: &World, f: Folio, found: &[u32]) -> String {
    if found.is_empty() {
        return "nothing".into();
    }
    let index = w.folio_index(f);
    let v: Vec<String> = found
        .iter()
        .map(|&v| {
            let x = &w.vmas[v as usize];
            let mm = x.vm_mm.map_or("no mm".to_string(), |m| format!("mm#{m}"));
            match vma_address(w, v, f, index) {
                Some(a) => format!("vma#{v} ({mm}, address {a})"),
                None => format!("vma#{v} ({mm}, outside)"),
            }
        })
        .collect();
    v.join(", ")
}

/// The VMA of `mm`'s list that covers `addr`.
fn vma_at(w: &World, mm: u32, addr: u64) -> Option<u32> {
    let (_, &(end, v)) = w.mms[mm as usize].vmas.range(..=addr).next_back()?;
    (addr < end).then_some(v)
}

/// `rmap-complete` and `rmap-exact` at a call boundary.
pub fn check_rmap(w: &World, complete: bool, exact: bool) -> Vec<Violation> {
    let mut out = Vec::new();
    for (f, ptes) in mapped_folios(w) {
        let found = match walk(w, f) {
            Ok(found) => found,
            Err(why) => {
                if complete {
                    let (mm, addr) = ptes[0];
                    out.push(Violation::new(
                        Invariant::RmapComplete,
                        format!(
                            "pte (mm#{mm}, address {addr}) maps {}, but {why}: no rmap walk can \
                             find the pte",
                            w.describe_folio(f)
                        ),
                    ));
                }
                continue;
            }
        };
        if complete {
            out.extend(missed_ptes(w, f, &ptes, &found));
        }
        if exact {
            out.extend(inexact(w, f, &found));
        }
    }
    out
}

fn missed_ptes(w: &World, f: Folio, ptes: &[(u32, u64)], found: &[u32]) -> Vec<Violation> {
    let index = w.folio_index(f);
    let mut out = Vec::new();
    for &(mm, addr) in ptes {
        let hit = found.iter().any(|&v| {
            w.vmas[v as usize].vm_mm == Some(mm) && vma_address(w, v, f, index) == Some(addr)
        });
        if hit {
            continue;
        }
        let should = match vma_at(w, mm, addr) {
            Some(v) => format!("{} of mm#{mm}", w.describe_vma(v)),
            None => format!("a VMA of mm#{mm} at {addr}, and none covers it"),
        };
        let tree = match f {
            Folio::File { mapping, .. } => format!("mapping#{mapping}'s i_mmap"),
            Folio::Anon(a) => format!("anon_vma#{}'s tree", w.anon_folios[a as usize].anon_vma),
        };
        out.push(Violation::new(
            Invariant::RmapComplete,
            format!(
                "pte (mm#{mm}, address {addr}) maps {}; the walk of {tree} at index {index} \
                 finds {} but should find {should}",
                w.describe_folio(f),
                found_text(w, f, found)
            ),
        ));
    }
    out
}

fn inexact(w: &World, f: Folio, found: &[u32]) -> Vec<Violation> {
    let index = w.folio_index(f);
    let mut out = Vec::new();
    let mut bad = |v: u32, why: String| {
        out.push(Violation::new(
            Invariant::RmapExact,
            format!(
                "the rmap walk from {} returns vma#{v}, {why}",
                w.describe_folio(f)
            ),
        ))
    };
    for (i, &v) in found.iter().enumerate() {
        let x = &w.vmas[v as usize];
        if found[..i].contains(&v) {
            bad(v, "a second time (two links to one tree)".into());
        } else if !vma_live(w, v) {
            bad(v, "which is no longer a VMA of a live mm".into());
        } else if vma_address(w, v, f, index).is_none() {
            bad(v, format!("which does not map index {index}"));
        } else {
            match f {
                Folio::File { mapping, .. } => {
                    if w.vma_mapping(v) != Some(mapping) || x.is_anonymous() {
                        bad(v, format!("which cannot map a page of mapping#{mapping}"));
                    }
                }
                Folio::Anon(a) => {
                    let av = w.anon_folios[a as usize].anon_vma;
                    let root = w.anon_vmas[av as usize].root;
                    let own = x.anon_vma.map(|o| w.anon_vmas[o as usize].root);
                    if own != Some(root) {
                        bad(
                            v,
                            format!(
                                "whose anon_vma is not in anon_vma#{av}'s hierarchy (root \
                                 anon_vma#{root})"
                            ),
                        );
                    }
                }
            }
        }
    }
    out
}

/// Which ptes a call may change, following the kernel's version of the call (`Remap` expects the
/// move done: the explorer and `check_preconditions` admit only moves the model carries out).
/// Calls not named here (split, merge, mprotect, mremap expand, vma_shrink, the contract entry points) change
/// none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PteChange {
    None,
    /// munmap, mremap shrink: the ptes of `[start, end)` in `mm` may go.
    Drop {
        mm: u32,
        start: u64,
        end: u64,
    },
    /// A fault: the pte at `addr` may be set or replaced.
    Fault {
        mm: u32,
        addr: u64,
    },
    /// fork: new mms may map, at the same address, what the parent maps.
    Fork {
        parent: u32,
    },
    /// exec's stack move: the ptes of `[start, end)` move down by `shift`.
    Move {
        mm: u32,
        start: u64,
        end: u64,
        shift: u64,
    },
    /// mremap move: the ptes of `[old, old + old_len)` move to `new` (the rest of the new range,
    /// when it grows, stays empty; past `new_len`, when it shrinks, they go) and the old range
    /// is left empty (MREMAP_DONTUNMAP keeps its VMA).
    Remap {
        mm: u32,
        old: u64,
        old_len: u64,
        new: u64,
        new_len: u64,
    },
}

fn arg_int(call: &Call, i: usize) -> Option<u64> {
    match call.args.get(i)? {
        Value::Int(x) if *x >= 0 => Some(*x as u64),
        _ => None,
    }
}

fn arg_mm(call: &Call) -> Option<u32> {
    match call.args.first()? {
        Value::Obj(ObjKind::Mm, m) => Some(*m),
        _ => None,
    }
}

/// The page-table change `call` may make, judged on the world before it.
pub(crate) fn pte_change(call: &Call, before: &World) -> PteChange {
    let Some(mm) = arg_mm(call) else {
        return PteChange::None;
    };
    let vma_end = |addr: u64| {
        before
            .mms
            .get(mm as usize)
            .and_then(|_| vma_at(before, mm, addr))
            .map(|v| before.vmas[v as usize].vm_end)
    };
    let int = |i| arg_int(call, i);
    let change = match call.func.as_str() {
        // a MAP_FIXED failing after its clean-up leaves the range unmapped, as munmap does
        "sys_munmap" | "sys_mmap_fixed_fail" => (|| {
            Some(PteChange::Drop {
                mm,
                start: int(1)?,
                end: int(2)?,
            })
        })(),
        "sys_mremap_shrink" => (|| {
            Some(PteChange::Drop {
                mm,
                start: int(2)?,
                end: vma_end(int(1)?)?,
            })
        })(),
        // MAP_FIXED over existing mappings zaps what the new range covers
        "sys_mmap_fixed" => (|| {
            Some(PteChange::Drop {
                mm,
                start: int(2)?,
                end: int(3)?,
            })
        })(),
        "sys_exit" => Some(PteChange::Drop {
            mm,
            start: 0,
            end: u64::MAX,
        }),
        "do_anonymous_fault"
        | "do_anonymous_fault_vma_lock"
        | "do_file_fault"
        | "do_stack_fault"
        | "do_stack_fault_up" => int(1).map(|addr| PteChange::Fault { mm, addr }),
        "sys_fork" => Some(PteChange::Fork { parent: mm }),
        "sys_shift_down" => (|| {
            let start = int(1)?;
            Some(PteChange::Move {
                mm,
                start,
                end: vma_end(start)?,
                shift: int(2)?,
            })
        })(),
        // a shrinking move: the tail's ptes go, the rest moves (Remap empties the whole old range)
        "sys_mremap_move" | "sys_mremap_move_shrink" => (|| {
            Some(PteChange::Remap {
                mm,
                old: int(1)?,
                old_len: int(2)?,
                new: int(4)?,
                new_len: int(3)?,
            })
        })(),
        // MREMAP_DONTUNMAP: the source VMA stays, empty
        "sys_mremap_dontunmap" => (|| {
            let len = int(2)?;
            Some(PteChange::Remap {
                mm,
                old: int(1)?,
                old_len: len,
                new: int(3)?,
                new_len: len,
            })
        })(),
        _ => None,
    };
    change.unwrap_or(PteChange::None)
}

/// The ptes of every mm, for `mapping-preserved` (taken before a call).
pub fn page_tables(w: &World) -> Vec<PageTable> {
    w.mms.iter().map(|m| m.ptes.clone()).collect()
}

/// `mapping-preserved` when a call returns: `before` holds the page tables the call started
/// from and `change` what the call may do to them.
pub fn check_mapping_preserved(
    before: &[PageTable],
    change: PteChange,
    w: &World,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let empty = PageTable::new();
    for (m, mm) in w.mms.iter().enumerate() {
        let m = m as u32;
        let old = before.get(m as usize).unwrap_or(&empty);
        // what this mm's page table may look like after the call
        let expect = |addr: u64| -> Option<Option<Folio>> {
            match change {
                PteChange::Drop { mm, start, end } if mm == m && (start..end).contains(&addr) => {
                    None
                }
                PteChange::Fault { mm, addr: a } if mm == m && a == addr => None,
                PteChange::Fork { parent } if m as usize >= before.len() => {
                    // a new mm may lack a pte (not copied) or copy the parent's
                    let p = before.get(parent as usize)?.get(&addr).copied();
                    let now = w.mms[m as usize].ptes.get(&addr).copied();
                    Some(if now.is_none() { None } else { p })
                }
                PteChange::Move {
                    mm,
                    start,
                    end,
                    shift,
                } if mm == m => {
                    let src = addr.saturating_add(shift);
                    Some(if (start..end).contains(&src) {
                        old.get(&src).copied()
                    } else if (start..end).contains(&addr) {
                        None // vacated by the move
                    } else {
                        old.get(&addr).copied()
                    })
                }
                PteChange::Remap {
                    mm,
                    old: o,
                    old_len,
                    new,
                    new_len,
                } if mm == m => Some(if (new..new + new_len).contains(&addr) {
                    let off = addr - new;
                    (off < old_len)
                        .then(|| old.get(&(o + off)).copied())
                        .flatten()
                } else if (o..o + old_len).contains(&addr) {
                    None // moved away
                } else {
                    old.get(&addr).copied()
                }),
                _ => Some(old.get(&addr).copied()),
            }
        };
        let addrs: std::collections::BTreeSet<u64> =
            old.keys().chain(mm.ptes.keys()).copied().collect();
        for addr in addrs {
            let now = mm.ptes.get(&addr).copied();
            if let Some(want) = expect(addr) {
                if now != want {
                    let show =
                        |f: Option<Folio>| f.map_or("nothing".into(), |f| w.describe_folio(f));
                    out.push(Violation::new(
                        Invariant::MappingPreserved,
                        format!(
                            "mm#{m} address {addr} mapped {} before the call and maps {} after \
                             it; the call must not change it",
                            show(old.get(&addr).copied()),
                            show(now)
                        ),
                    ));
                }
            }
        }
    }
    out.extend(check_pgoff_arithmetic(w));
    out
}

/// Every pte lies in a VMA of its mm that maps the folio at that address.
pub(crate) fn check_pgoff_arithmetic(w: &World) -> Vec<Violation> {
    let mut out = Vec::new();
    for (m, mm) in w.mms.iter().enumerate() {
        for (&addr, &f) in &mm.ptes {
            let index = w.folio_index(f);
            let why = match vma_at(w, m as u32, addr) {
                None => Some(format!("no VMA of mm#{m} covers address {addr}")),
                Some(v) => {
                    let x = &w.vmas[v as usize];
                    let base = x.pgoff_for(matches!(f, Folio::Anon(_)));
                    let lin = linear_page_index(x.vm_start, base, addr);
                    match f {
                        Folio::File { mapping, .. } if w.vma_mapping(v) != Some(mapping) => {
                            Some(format!("{} maps another file there", w.describe_vma(v)))
                        }
                        _ if lin != index => Some(format!(
                            "{} has linear page index {lin} there",
                            w.describe_vma(v)
                        )),
                        _ => None,
                    }
                }
            };
            if let Some(why) = why {
                out.push(Violation::new(
                    Invariant::MappingPreserved,
                    format!(
                        "pte (mm#{m}, address {addr}) maps {} (index {index}), but {why}",
                        w.describe_folio(f)
                    ),
                ));
            }
        }
    }
    out
}
