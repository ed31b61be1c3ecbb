//! What the preconditions of [`super::TABLE`] read: a call's arguments by kind (checked once
//! by [`super::check`] before any record's `requires` runs) and the VMA at an address.

use super::Arg;
use crate::check::membership::vma_live;
use crate::exec::host::{ObjKind, Value};
use crate::world::scenario::Call;
use crate::world::World;

/// A call whose arguments have the kinds its record names, in the world before it.
pub struct At<'a> {
    pub w: &'a World,
    pub call: &'a Call,
    /// The mm (first argument).
    pub mm: u32,
}

impl At<'_> {
    /// Argument `i` as a page number (checked non-negative; a boolean is 0 or 1).
    pub fn page(&self, i: usize) -> u64 {
        match self.call.args.get(i) {
            Some(Value::Int(x)) => *x as u64,
            Some(Value::Bool(b)) => *b as u64,
            _ => 0,
        }
    }
    /// Argument `i` as an object id (a VMA, a file).
    pub fn obj(&self, i: usize) -> Option<u32> {
        match self.call.args.get(i) {
            Some(Value::Obj(_, id)) => Some(*id),
            _ => None,
        }
    }
    /// Argument `i` as a boolean (an integer is true when not 0).
    pub fn flag(&self, i: usize) -> bool {
        match self.call.args.get(i) {
            Some(Value::Bool(b)) => *b,
            Some(Value::Int(x)) => *x != 0,
            _ => false,
        }
    }
    /// The VMA of the mm containing page `a`, with its neighbours; `Err` names the address.
    pub(crate) fn vma_at(&self, a: u64) -> Result<(u32, Option<u32>, Option<u32>), String> {
        vma_at(self.w, self.mm, a).ok_or(format!("no VMA at {a}"))
    }
}

/// The VMA of mm `m` containing page `a`, with its neighbours in the mm's list.
pub(crate) fn vma_at(w: &World, m: u32, a: u64) -> Option<(u32, Option<u32>, Option<u32>)> {
    let mut prev = None;
    let mut list = w.mms[m as usize].vmas.values();
    while let Some(&(_, v)) = list.next() {
        let x = &w.vmas[v as usize];
        if x.vm_start <= a && a < x.vm_end {
            return Some((v, prev, list.next().map(|&(_, n)| n)));
        }
        prev = Some(v);
    }
    None
}

fn arg_int(c: &Call, i: usize) -> Result<u64, String> {
    match c.args.get(i) {
        Some(Value::Int(x)) if *x >= 0 => Ok(*x as u64),
        Some(Value::Bool(b)) => Ok(*b as u64),
        other => Err(format!("{c}: argument {} is {other:?}, not a page", i + 1)),
    }
}

/// Argument `i` as a live object of `kind`.
pub(crate) fn arg_obj(w: &World, c: &Call, i: usize, kind: ObjKind) -> Result<u32, String> {
    let id = match c.args.get(i) {
        Some(Value::Obj(k, id)) if *k == kind => *id,
        other => {
            return Err(format!(
                "{c}: argument {} is {other:?}, not a {kind:?}",
                i + 1
            ))
        }
    };
    let exists = match kind {
        ObjKind::Mm => (id as usize) < w.mms.len() && !w.mms[id as usize].freed,
        ObjKind::Vma => vma_live(w, id),
        ObjKind::File => (id as usize) < w.files.len(),
        _ => false,
    };
    if !exists {
        return Err(format!("{c}: no live {kind:?}#{id}"));
    }
    Ok(id)
}

/// Whether argument `i` of `c` (whose mm is `mm`) is of `kind`; `Err` says how it is not.
pub(crate) fn arg_kind(w: &World, c: &Call, mm: u32, i: usize, kind: Arg) -> Result<(), String> {
    match kind {
        Arg::Mm => arg_obj(w, c, i, ObjKind::Mm).map(drop),
        Arg::Vma => {
            // the VMA a contract call names must belong to the mm it names
            let v = arg_obj(w, c, i, ObjKind::Vma)?;
            let listed = w.mms[mm as usize].vmas.values().any(|&(_, x)| x == v);
            if w.vmas[v as usize].vm_mm != Some(mm) || !listed {
                return Err(format!("{c}: vma#{v} is not in mm#{mm}"));
            }
            Ok(())
        }
        Arg::FileOrNull => match c.args.get(i) {
            Some(Value::Null) => Ok(()),
            _ => arg_obj(w, c, i, ObjKind::File).map(drop),
        },
        Arg::Page => arg_int(c, i).map(drop),
        Arg::Flag => match c.args.get(i) {
            Some(Value::Bool(_) | Value::Int(_)) => Ok(()),
            other => Err(format!("{c}: argument {} is {other:?}, not a flag", i + 1)),
        },
    }
}
