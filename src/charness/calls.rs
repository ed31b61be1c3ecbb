//! Which model entry points cdiff compares, and the harness request each one becomes
//! (docs/CDIFF.md, "Entry points"). The request names the same kernel path the model's
//! function paraphrases, with the model's own arguments in pages; entry points the harness
//! cannot reach are skipped with the reason, and counted.

use crate::entry::EntryPoint;
use crate::exec::host::{ObjKind, Value};
use crate::oracle::sequences::Drive;
use crate::world::scenario::Call;
use crate::world::World;

/// The harness path each compared entry point takes, for the docs and the report.
pub const COMPARED: &[(EntryPoint, &str)] = &[
    (EntryPoint::Mmap, "mmap_region()"),
    (EntryPoint::MmapFixed, "mmap_region() over existing VMAs"),
    (EntryPoint::MmapGrowsdown, "mmap_region() with VM_GROWSDOWN"),
    (EntryPoint::Munmap, "__vm_munmap() -> do_vmi_munmap()"),
    (
        EntryPoint::Mprotect,
        "vma_modify_flags() (mprotect_fixup())",
    ),
    (EntryPoint::MremapExpand, "vma_merge_extend()"),
    (EntryPoint::MremapShrink, "do_vmi_munmap() of the tail"),
    (
        EntryPoint::MremapMove,
        "do_vmi_munmap() of the target, copy_vma(), move_page_tables(), do_vmi_munmap() of the source",
    ),
    (
        EntryPoint::StackFault,
        "expand_downwards(), then the page's anonymous folio",
    ),
    (EntryPoint::ShiftDown, "relocate_vma_down()"),
    (
        EntryPoint::AnonymousFault,
        "anon_vma_prepare(), then do_anonymous_page()'s folio (ghost pte)",
    ),
    (
        EntryPoint::AnonymousFaultVmaLock,
        "anon_vma_prepare(), then do_anonymous_page()'s folio (ghost pte)",
    ),
    (
        EntryPoint::FileFault,
        "do_read_fault(): the page-cache folio (ghost pte; no rmap change)",
    ),
    (
        EntryPoint::Fork,
        "dup_mmap()'s loop: vm_area_dup(), anon_vma_fork(), mapping_rmap_tree_insert_after()",
    ),
    (
        EntryPoint::Exit,
        "exit_mmap(): unlink_anon_vmas(), unlink_file_vma_batch_*(), remove_vma()",
    ),
    (
        EntryPoint::MremapMoveShrink,
        "do_vmi_munmap() of the target and of the tail, then the move as for the same length",
    ),
    (
        EntryPoint::MremapDontunmap,
        "do_vmi_munmap() of the target, copy_vma(), move_page_tables(), dontunmap_complete()",
    ),
    (
        EntryPoint::MunmapAbort,
        "__vm_munmap() with do_vmi_align_munmap()'s vma_iter_clear_gfp() failing (reattach_vmas())",
    ),
    (
        EntryPoint::ForkFail,
        "dup_mmap()'s loop failing after `copied` VMAs, then its error path's teardown",
    ),
    (
        EntryPoint::MmapFixedFail,
        "mmap_region() of a file whose mmap_prepare hook fails (vms_abort_munmap_vmas())",
    ),
    (EntryPoint::ContractSplit, "__split_vma() (mm/vma.c, static)"),
    (EntryPoint::ContractShrink, "vma_shrink()"),
    (
        EntryPoint::ContractAdjustNext,
        "commit_merge() (static), __adjust_next_start",
    ),
    (
        EntryPoint::ContractAdjustMiddle,
        "commit_merge() (static), __adjust_middle_start",
    ),
];

/// Why an entry point is not compared, or None when it is.
pub fn skip_reason(p: EntryPoint) -> Option<&'static str> {
    use EntryPoint::*;
    match p {
        SetupStackGrowsup | StackFaultUp => {
            Some("CONFIG_STACK_GROWSUP (parisc) only: the x86 harness has no VM_GROWSUP stack")
        }
        _ => None,
    }
}

fn int(call: &Call, i: usize) -> Result<u64, String> {
    match call.args.get(i) {
        Some(Value::Int(v)) if *v >= 0 => Ok(*v as u64),
        Some(Value::Bool(b)) => Ok(u64::from(*b)),
        a => Err(format!(
            "{call}: argument {} is {a:?}, not a page number",
            i + 1
        )),
    }
}

fn obj(call: &Call, i: usize, kind: ObjKind) -> Result<Option<u64>, String> {
    match call.args.get(i) {
        Some(Value::Obj(k, id)) if *k == kind => Ok(Some(u64::from(*id))),
        Some(Value::Null) => Ok(None),
        a => Err(format!(
            "{call}: argument {} is {a:?}, not a {kind:?}",
            i + 1
        )),
    }
}

/// The start page of the VMA that argument `i` names in `w` (a contract call names its VMA by
/// object; the harness finds it by its start).
fn vma_start(w: &World, call: &Call, i: usize) -> Result<u64, String> {
    let v = obj(call, i, ObjKind::Vma)?.ok_or_else(|| format!("{call}: the VMA is NULL"))?;
    w.vmas
        .get(v as usize)
        .filter(|x| x.vm_mm.is_some())
        .map(|x| x.vm_start)
        .ok_or_else(|| format!("{call}: vma#{v} is not mapped"))
}

/// The harness request for `call`, made on the model world `w`.
pub fn drive(w: &World, call: &Call) -> Result<Drive<String>, String> {
    use EntryPoint::*;
    let Some(p) = EntryPoint::from_name(&call.func) else {
        return Ok(Drive::Skip(format!(
            "entry point {:?} is not one cdiff knows",
            call.func
        )));
    };
    if let Some(r) = skip_reason(p) {
        return Ok(Drive::Skip(r.to_string()));
    }
    let mm = obj(call, 0, ObjKind::Mm)?.ok_or_else(|| format!("{call}: mm is NULL"))?;
    if mm as usize >= w.mms.len() {
        return Err(format!("{call}: mm#{mm} does not exist"));
    }
    let r = match p {
        Mmap | MmapFixed => {
            let file = obj(call, 1, ObjKind::File)?;
            let (start, end) = (int(call, 2)?, int(call, 3)?);
            // the model's do_mmap(): an anonymous mapping's pgoff is its start page
            let pgoff = if file.is_some() { int(call, 4)? } else { start };
            let f = file.map_or("-".to_string(), |f| f.to_string());
            format!("mmap {mm} {start} {end} {f} {pgoff} {} 0", int(call, 5)?)
        }
        MmapGrowsdown => {
            let (start, end) = (int(call, 1)?, int(call, 2)?);
            format!("mmap {mm} {start} {end} - {start} 0 1")
        }
        Munmap => format!("munmap {mm} {} {}", int(call, 1)?, int(call, 2)?),
        Mprotect => format!(
            "mprotect {mm} {} {} {}",
            int(call, 1)?,
            int(call, 2)?,
            int(call, 3)?
        ),
        MremapExpand => format!("mremap_expand {mm} {} {}", int(call, 1)?, int(call, 2)?),
        MremapShrink => format!("mremap_shrink {mm} {} {}", int(call, 1)?, int(call, 2)?),
        MremapMove => format!(
            "mremap_move {mm} {} {} {} {}",
            int(call, 1)?,
            int(call, 2)?,
            int(call, 3)?,
            int(call, 4)?
        ),
        StackFault => format!("stack_fault {mm} {}", int(call, 1)?),
        ShiftDown => format!("shift_down {mm} {} {}", int(call, 1)?, int(call, 2)?),
        AnonymousFault | AnonymousFaultVmaLock => format!("anon_fault {mm} {}", int(call, 1)?),
        FileFault => format!("file_fault {mm} {}", int(call, 1)?),
        Fork => format!("fork {mm}"),
        MremapMoveShrink => format!(
            "mremap_move_shrink {mm} {} {} {} {}",
            int(call, 1)?,
            int(call, 2)?,
            int(call, 3)?,
            int(call, 4)?
        ),
        MremapDontunmap => format!(
            "mremap_dontunmap {mm} {} {} {}",
            int(call, 1)?,
            int(call, 2)?,
            int(call, 3)?
        ),
        MunmapAbort => format!("munmap_abort {mm} {} {}", int(call, 1)?, int(call, 2)?),
        MmapFixedFail => format!("mmap_fixed_fail {mm} {} {}", int(call, 1)?, int(call, 2)?),
        ForkFail => format!("fork_fail {mm} {}", int(call, 1)?),
        Exit => format!("exit {mm}"),
        ContractSplit => format!(
            "contract_split {mm} {} {} {}",
            vma_start(w, call, 1)?,
            int(call, 2)?,
            int(call, 3)?
        ),
        ContractShrink => format!(
            "contract_shrink {mm} {} {}",
            vma_start(w, call, 1)?,
            int(call, 2)?
        ),
        ContractAdjustNext | ContractAdjustMiddle => format!(
            "{} {mm} {} {} {}",
            if p == ContractAdjustNext {
                "contract_adjust_next"
            } else {
                "contract_adjust_middle"
            },
            vma_start(w, call, 1)?,
            int(call, 2)?,
            int(call, 3)?
        ),
        _ => unreachable!("skipped above"),
    };
    Ok(Drive::Op(Some(r)))
}

/// The `reset` request for a world's files (`f` a regular file, `z` /dev/zero).
pub fn reset(w: &World) -> String {
    let files: String = w
        .files
        .iter()
        .map(|f| if f.dev_zero { 'z' } else { 'f' })
        .collect();
    format!("reset {files}")
}
