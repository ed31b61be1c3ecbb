//! The page-level precondition of the contract entry points: a contract call may re-key VMAs
//! with any pgoff their documented preconditions allow, but the kernel's callers only do so for
//! pages they have moved or freed first (exec's stack move moves the page tables before
//! `vma_shrink()`; a merge imports the anon_vma before `commit_merge()`). So a contract call is
//! offered only when every pte in the range it changes still lies, afterwards, in a VMA that
//! maps its folio at that address: same linear page index, same file, and for an anonymous
//! folio an anon_vma_chain into the folio's anon_vma. A call that breaks this is a caller bug,
//! not a bug of the function under test, and would make `rmap-complete` and
//! `mapping-preserved` fire on every patch alike.

use super::EntryPoint;
use crate::exec::host::{ObjKind, Value};
use crate::world::pages::linear_page_index;
use crate::world::scenario::Call;
use crate::world::{Folio, World};

/// A VMA's range and page offsets after the call: `(vma, start, end, pgoff, anon_pgoff)`.
type NewRange = (u32, u64, u64, u64, u64);

/// `vma`'s anonymous pgoff once a contract call gives it pgoff `pg` at the same start: it
/// follows `pg` for a VMA with no file and stays for a file VMA, private /dev/zero included
/// (the contract entry points' rule, models/v7.3-rc4/lib/contract.rmap).
fn anon_for(w: &World, vma: u32, pg: u64) -> u64 {
    let x = &w.vmas[vma as usize];
    if x.vm_file.is_none() {
        pg
    } else {
        x.vm_anon_pgoff
    }
}

/// The layout a contract call leaves: `(vma, start, end, pgoff, anon_pgoff)` for each VMA it
/// changes, and the address range whose ptes it affects. `None` for a call that is not a
/// contract call that changes a layout (and so has no page-level precondition).
fn intended(w: &World, point: EntryPoint, call: &Call) -> Option<(Vec<NewRange>, u64, u64)> {
    if !matches!(
        point,
        EntryPoint::ContractShrink
            | EntryPoint::ContractAdjustNext
            | EntryPoint::ContractAdjustMiddle
    ) {
        return None;
    }
    let int = |i: usize| match call.args.get(i) {
        Some(Value::Int(x)) if *x >= 0 => Some(*x as u64),
        _ => None,
    };
    let Some(Value::Obj(ObjKind::Vma, v)) = call.args.get(1).copied() else {
        return None;
    };
    let x = w.vmas.get(v as usize)?;
    let mm = x.vm_mm?;
    let list = w.mm_vmas(mm);
    let at = list.iter().position(|&y| y == v)?;
    match point {
        EntryPoint::ContractShrink => {
            let e = int(2)?;
            Some((
                vec![(v, x.vm_start, e, x.vm_pgoff, x.vm_anon_pgoff)],
                x.vm_start,
                x.vm_end,
            ))
        }
        EntryPoint::ContractAdjustNext => {
            let (e, pg) = (int(2)?, int(3)?);
            let n = *list.get(at + 1)?;
            let y = &w.vmas[n as usize];
            let delta = y.vm_start.checked_sub(e)?;
            let npg = y.vm_pgoff.checked_sub(delta)?;
            let nanon = y.vm_anon_pgoff.checked_sub(delta)?;
            Some((
                vec![
                    (v, x.vm_start, e, pg, anon_for(w, v, pg)),
                    (n, e, y.vm_end, npg, nanon),
                ],
                x.vm_start,
                y.vm_end,
            ))
        }
        EntryPoint::ContractAdjustMiddle => {
            let (e, pg) = (int(2)?, int(3)?);
            let p = *list.get(at.checked_sub(1)?)?;
            let y = &w.vmas[p as usize];
            let delta = e.checked_sub(x.vm_start)?;
            Some((
                vec![
                    (p, y.vm_start, e, pg, anon_for(w, p, pg)),
                    (v, e, x.vm_end, x.vm_pgoff + delta, x.vm_anon_pgoff + delta),
                ],
                y.vm_start,
                x.vm_end,
            ))
        }
        _ => None,
    }
}

/// Whether `call` keeps every pte it touches mapped as before (see the module docs); true for
/// every call that is not a layout-changing contract call.
pub fn contract_keeps_pages(w: &World, call: &Call) -> bool {
    EntryPoint::from_name(&call.func).is_none_or(|p| keeps_pages(w, p, call))
}

/// [`contract_keeps_pages`] for a call to `point`.
pub(crate) fn keeps_pages(w: &World, point: EntryPoint, call: &Call) -> bool {
    let Some((layout, lo, hi)) = intended(w, point, call) else {
        return true;
    };
    let Some(mm) = w.vmas[layout[0].0 as usize].vm_mm else {
        return true;
    };
    w.mms[mm as usize].ptes.range(lo..hi).all(|(&a, &f)| {
        let Some(&(v, s, _, pg, anon)) = layout.iter().find(|&&(_, s, e, _, _)| s <= a && a < e)
        else {
            return false;
        };
        let base = match f {
            Folio::File { .. } => pg,
            Folio::Anon(_) => anon,
        };
        if linear_page_index(s, base, a) != w.folio_index(f) {
            return false;
        }
        match f {
            Folio::File { mapping, .. } => w.vma_mapping(v) == Some(mapping),
            Folio::Anon(x) => {
                let av = w.anon_folios[x as usize].anon_vma;
                w.vmas[v as usize]
                    .anon_vma_chain
                    .iter()
                    .any(|&c| w.avcs[c as usize].anon_vma == Some(av))
            }
        }
    })
}
