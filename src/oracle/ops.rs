//! The system calls that stand for a model call: each callers-mode entry point is translated,
//! with the model world before the call, into one operation on one process (mm). Entry points
//! that no system call reaches (exec's stack move, contract-mode internals, names this module
//! does not know) are skipped with a reason, never dropped silently.

use crate::entry::EntryPoint;
use crate::exec::host::{ObjKind, Value};
use crate::world::builtins::VM_WRITE;
use crate::world::scenario::Call;
use crate::world::World;

/// One operation on the process standing for model mm `mm`. Addresses and lengths are in model
/// pages; the driver adds the base address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KOp {
    /// mmap(MAP_FIXED_NOREPLACE, or MAP_FIXED with `fixed`) of `[start, start + len)`; `file` is a model file index (None:
    /// MAP_ANONYMOUS); `pgoff` in pages; always PROT_READ | PROT_WRITE as the model maps.
    Mmap {
        mm: usize,
        start: u64,
        len: u64,
        file: Option<usize>,
        pgoff: u64,
        shared: bool,
        /// The file is /dev/zero: its private mapping is anonymous, and the model numbers an
        /// anonymous mapping's pgoff by its address, so the driver maps it at the file offset
        /// of its absolute address (as mremap sets it for one never faulted) and reads offsets
        /// back relative to the base.
        dev_zero: bool,
        /// MAP_GROWSDOWN (`sys_mmap_growsdown`; anonymous).
        growsdown: bool,
        /// MAP_FIXED instead of MAP_FIXED_NOREPLACE (`sys_mmap_fixed`: the range overlaps
        /// mappings, which the kernel replaces).
        fixed: bool,
    },
    Munmap {
        mm: usize,
        start: u64,
        len: u64,
    },
    /// mprotect to PROT_READ, or PROT_READ | PROT_WRITE when `writable`.
    Mprotect {
        mm: usize,
        start: u64,
        len: u64,
        writable: bool,
    },
    /// mremap in place (no MREMAP_MAYMOVE) from `old_len` to `new_len` pages.
    Mremap {
        mm: usize,
        start: u64,
        old_len: u64,
        new_len: u64,
    },
    /// mremap(MREMAP_MAYMOVE | MREMAP_FIXED) of `[start, start + old_len)` to
    /// `[new_start, new_start + new_len)` (`new_len < old_len`: a shrinking move); with
    /// `dontunmap`, MREMAP_DONTUNMAP too (equal lengths; the source stays mapped).
    MremapMove {
        mm: usize,
        start: u64,
        old_len: u64,
        new_len: u64,
        new_start: u64,
        dontunmap: bool,
    },
    /// A write to one page: a store when the VMA is writable, else a forced write through
    /// /proc/self/mem (the kernel's FOLL_FORCE path breaks COW the same way).
    WriteFault {
        mm: usize,
        page: u64,
        store: bool,
    },
    /// A read of one byte of a page.
    ReadFault {
        mm: usize,
        page: u64,
    },
    /// fork(): the new process stands for model mm `child`.
    Fork {
        mm: usize,
        child: usize,
    },
}

impl KOp {
    /// The model mm (process) the operation runs in.
    pub fn mm(&self) -> usize {
        match *self {
            KOp::Mmap { mm, .. }
            | KOp::Munmap { mm, .. }
            | KOp::Mprotect { mm, .. }
            | KOp::Mremap { mm, .. }
            | KOp::MremapMove { mm, .. }
            | KOp::WriteFault { mm, .. }
            | KOp::ReadFault { mm, .. }
            | KOp::Fork { mm, .. } => mm,
        }
    }
}

/// What a model call becomes on the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Translated {
    Op(KOp),
    /// Not driven on the kernel, with the reason (counted by the caller).
    Skip(String),
}

/// The entry point `func` names when kdiff drives it, else why it is skipped.
fn driven(func: &str) -> Result<EntryPoint, String> {
    use EntryPoint::*;
    let Some(p) = EntryPoint::from_name(func) else {
        return Err(format!(
            "entry point {func:?} is not one kdiff knows how to drive"
        ));
    };
    match p {
        Mmap
        | Munmap
        | Mprotect
        | MremapExpand
        | MremapShrink
        | MremapMove
        | MmapGrowsdown
        | StackFault
        | Fork
        | Exit
        | AnonymousFault
        | AnonymousFaultVmaLock
        | FileFault
        | MmapFixed
        | MremapMoveShrink
        | MremapDontunmap => Ok(p),
        ShiftDown => Err("exec's stack move (relocate_vma_down) has no system call".into()),
        SetupStackGrowsup | StackFaultUp => Err(format!(
            "{p} is CONFIG_STACK_GROWSUP (parisc) only: this kernel has no VM_GROWSUP stack to \
             set up or grow (expand_upwards is not built), so kdiff cannot drive it"
        )),
        MunmapAbort | ForkFail | MmapFixedFail => Err(format!(
            "{p} needs a kernel allocation failure (ENOMEM inside the kernel after it has begun \
             to change the VMAs), which user space cannot force on the running kernel"
        )),
        ContractSplit | ContractShrink | ContractAdjustNext | ContractAdjustMiddle => {
            Err("contract-mode internal function: no system call passes these arguments".into())
        }
    }
}

/// Why an entry point is not driven, or None when it is one kdiff drives.
pub(crate) fn skip_reason(func: &str) -> Option<String> {
    driven(func).err()
}

/// Arguments 1 and 2 as a non-empty page range `[start, end)`.
fn range(call: &Call) -> Result<(u64, u64), String> {
    let (start, end) = (int(call, 1)?, int(call, 2)?);
    if end <= start {
        return Err(format!("{call}: empty range"));
    }
    Ok((start, end))
}

fn int(call: &Call, i: usize) -> Result<u64, String> {
    match call.args.get(i) {
        Some(Value::Int(v)) if *v >= 0 => Ok(*v as u64),
        a => Err(format!(
            "{call}: argument {} is {a:?}, not a page number",
            i + 1
        )),
    }
}

fn boolean(call: &Call, i: usize) -> Result<bool, String> {
    match call.args.get(i) {
        Some(Value::Bool(b)) => Ok(*b),
        a => Err(format!(
            "{call}: argument {} is {a:?}, not true/false",
            i + 1
        )),
    }
}

fn obj(call: &Call, i: usize, kind: ObjKind) -> Result<Option<usize>, String> {
    match call.args.get(i) {
        Some(Value::Obj(k, id)) if *k == kind => Ok(Some(*id as usize)),
        Some(Value::Null) => Ok(None),
        a => Err(format!(
            "{call}: argument {} is {a:?}, not a {kind:?}",
            i + 1
        )),
    }
}

fn mm_arg(call: &Call, w: &World) -> Result<usize, String> {
    let mm = obj(call, 0, ObjKind::Mm)?.ok_or_else(|| format!("{call}: mm is NULL"))?;
    if mm >= w.mms.len() || w.mms[mm].freed {
        return Err(format!("{call}: mm#{mm} does not exist"));
    }
    Ok(mm)
}

/// The model VMA of `mm` containing page `addr`: (start, end, flags).
fn vma_at(w: &World, mm: usize, addr: u64) -> Option<(u64, u64, i64)> {
    w.mm_vmas(mm as u32).into_iter().find_map(|v| {
        let x = &w.vmas[v as usize];
        (x.vm_start <= addr && addr < x.vm_end).then_some((x.vm_start, x.vm_end, x.vm_flags))
    })
}

/// Translate `call`, made on the world `w` (the model world before the call).
pub(crate) fn translate(w: &World, call: &Call) -> Result<Translated, String> {
    use EntryPoint::*;
    let p = match driven(&call.func) {
        Ok(p) => p,
        Err(r) => return Ok(Translated::Skip(r)),
    };
    let mm = mm_arg(call, w)?;
    let op = match p {
        Mmap | MmapFixed => {
            let file = obj(call, 1, ObjKind::File)?;
            if let Some(f) = file {
                if f >= w.files.len() {
                    return Err(format!("{call}: file#{f} does not exist"));
                }
            }
            let (start, end) = (int(call, 2)?, int(call, 3)?);
            if end <= start {
                return Err(format!("{call}: empty range"));
            }
            KOp::Mmap {
                mm,
                start,
                len: end - start,
                file,
                pgoff: if file.is_some() { int(call, 4)? } else { start },
                shared: boolean(call, 5)?,
                dev_zero: file.is_some_and(|f| w.files[f].dev_zero),
                growsdown: false,
                fixed: p == MmapFixed,
            }
        }
        MmapGrowsdown => {
            let (start, end) = range(call)?;
            KOp::Mmap {
                mm,
                start,
                len: end - start,
                file: None,
                pgoff: start,
                shared: false,
                dev_zero: false,
                growsdown: true,
                fixed: false,
            }
        }
        // a store just below the stack: the kernel grows it (expand_downwards) and faults
        StackFault => KOp::WriteFault {
            mm,
            page: int(call, 1)?,
            store: true,
        },
        Munmap => {
            let (start, end) = range(call)?;
            KOp::Munmap {
                mm,
                start,
                len: end - start,
            }
        }
        Exit => {
            // the model's exit_mmap() unmaps every VMA and the mm lives on: munmap(0, last end)
            let end = w
                .mm_vmas(mm as u32)
                .last()
                .map_or(0, |&v| w.vmas[v as usize].vm_end);
            if end == 0 {
                return Ok(Translated::Skip(
                    "exit of an empty mm changes nothing".into(),
                ));
            }
            KOp::Munmap {
                mm,
                start: 0,
                len: end,
            }
        }
        Mprotect => {
            let (start, end) = range(call)?;
            KOp::Mprotect {
                mm,
                start,
                len: end - start,
                writable: boolean(call, 3)?,
            }
        }
        MremapExpand | MremapShrink => {
            let (addr, new_end) = (int(call, 1)?, int(call, 2)?);
            let (s, e, _) = vma_at(w, mm, addr)
                .filter(|v| v.0 == addr)
                .ok_or_else(|| format!("{call}: no VMA starts at {addr} in the model"))?;
            if new_end <= s {
                return Err(format!("{call}: new end {new_end} is not above {s}"));
            }
            KOp::Mremap {
                mm,
                start: s,
                old_len: e - s,
                new_len: new_end - s,
            }
        }
        MremapMove => {
            let (start, old_len) = (int(call, 1)?, int(call, 2)?);
            let (new_len, new_start) = (int(call, 3)?, int(call, 4)?);
            vma_at(w, mm, start)
                .filter(|v| start + old_len <= v.1)
                .ok_or_else(|| {
                    format!("{call}: the old range is not inside one VMA of the model")
                })?;
            if old_len == 0 || new_len < old_len {
                return Err(format!("{call}: an empty or shrinking move"));
            }
            KOp::MremapMove {
                mm,
                start,
                old_len,
                new_len,
                new_start,
                dontunmap: false,
            }
        }
        MremapMoveShrink => {
            let (start, old_len) = (int(call, 1)?, int(call, 2)?);
            let (new_len, new_start) = (int(call, 3)?, int(call, 4)?);
            if new_len == 0 || new_len >= old_len {
                return Err(format!("{call}: not a shrinking move"));
            }
            vma_at(w, mm, start)
                .filter(|v| start + new_len <= v.1)
                .ok_or_else(|| {
                    format!("{call}: the part that moves is not inside one VMA of the model")
                })?;
            KOp::MremapMove {
                mm,
                start,
                old_len,
                new_len,
                new_start,
                dontunmap: false,
            }
        }
        MremapDontunmap => {
            let (start, len, new_start) = (int(call, 1)?, int(call, 2)?, int(call, 3)?);
            vma_at(w, mm, start)
                .filter(|v| len > 0 && start + len <= v.1)
                .ok_or_else(|| {
                    format!("{call}: the old range is not inside one VMA of the model")
                })?;
            KOp::MremapMove {
                mm,
                start,
                old_len: len,
                new_len: len,
                new_start,
                dontunmap: true,
            }
        }
        // a store or a read: the running kernel takes the per-VMA lock path first by itself
        AnonymousFault | AnonymousFaultVmaLock | FileFault => {
            let page = int(call, 1)?;
            let (_, _, flags) = vma_at(w, mm, page)
                .ok_or_else(|| format!("{call}: no VMA at page {page} in the model"))?;
            if p == FileFault {
                KOp::ReadFault { mm, page }
            } else {
                KOp::WriteFault {
                    mm,
                    page,
                    store: flags & VM_WRITE != 0,
                }
            }
        }
        Fork => KOp::Fork {
            mm,
            child: w.mms.len(),
        },
        ShiftDown | ContractSplit | ContractShrink | ContractAdjustNext | ContractAdjustMiddle
        | SetupStackGrowsup | StackFaultUp | MunmapAbort | ForkFail | MmapFixedFail => {
            return Ok(Translated::Skip(format!("entry point {p} is not driven")))
        }
    };
    Ok(Translated::Op(op))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::scenario::Scenario;

    fn world() -> World {
        Scenario::parse(
            "[[file]]\nname = \"f0\"\n[[mm]]\n[[mm.vma]]\nstart = 1\nend = 3\npgoff = 1\nfile = \"f0\"\nwritable = false\n",
        )
        .unwrap()
        .build()
        .unwrap()
        .canonical()
    }

    fn tr(w: &World, call: &str) -> Translated {
        translate(w, &Call::parse(call).unwrap()).unwrap()
    }

    #[test]
    fn calls_become_system_calls() {
        let w = world();
        assert_eq!(
            tr(&w, "sys_mremap_shrink(mm#0, 1, 2)"),
            Translated::Op(KOp::Mremap {
                mm: 0,
                start: 1,
                old_len: 2,
                new_len: 1
            })
        );
        assert_eq!(
            tr(&w, "sys_exit(mm#0)"),
            Translated::Op(KOp::Munmap {
                mm: 0,
                start: 0,
                len: 3
            })
        );
        // a write fault on a read-only private VMA goes through /proc/self/mem
        assert_eq!(
            tr(&w, "do_anonymous_fault(mm#0, 2)"),
            Translated::Op(KOp::WriteFault {
                mm: 0,
                page: 2,
                store: false
            })
        );
        assert_eq!(
            tr(&w, "do_file_fault(mm#0, 1)"),
            Translated::Op(KOp::ReadFault { mm: 0, page: 1 })
        );
        assert_eq!(
            tr(&w, "sys_fork(mm#0)"),
            Translated::Op(KOp::Fork { mm: 0, child: 1 })
        );
        assert_eq!(
            tr(&w, "sys_mmap(mm#0, NULL, 3, 4, 0, false)"),
            Translated::Op(KOp::Mmap {
                mm: 0,
                start: 3,
                len: 1,
                file: None,
                pgoff: 3,
                shared: false,
                dev_zero: false,
                growsdown: false,
                fixed: false
            })
        );
        assert_eq!(
            tr(&w, "sys_mremap_move_shrink(mm#0, 1, 2, 1, 6)"),
            Translated::Op(KOp::MremapMove {
                mm: 0,
                start: 1,
                old_len: 2,
                new_len: 1,
                new_start: 6,
                dontunmap: false
            })
        );
        assert_eq!(
            tr(&w, "sys_mremap_dontunmap(mm#0, 2, 1, 6)"),
            Translated::Op(KOp::MremapMove {
                mm: 0,
                start: 2,
                old_len: 1,
                new_len: 1,
                new_start: 6,
                dontunmap: true
            })
        );
        assert_eq!(
            tr(&w, "sys_mmap_fixed(mm#0, NULL, 0, 2, 0, false)"),
            Translated::Op(KOp::Mmap {
                mm: 0,
                start: 0,
                len: 2,
                file: None,
                pgoff: 0,
                shared: false,
                dev_zero: false,
                growsdown: false,
                fixed: true
            })
        );
    }

    #[test]
    fn undrivable_and_unknown_calls_are_skipped_with_a_reason() {
        let w = world();
        let Translated::Skip(r) = tr(&w, "sys_shift_down(mm#0, 1, 1)") else {
            panic!("shift_down is not driven");
        };
        assert!(r.contains("exec's stack move"), "{r}");
        let Translated::Skip(r) = tr(&w, "contract_split(mm#0, vma#0, 2, 0)") else {
            panic!("contract calls are not driven");
        };
        assert!(r.contains("contract-mode"), "{r}");
        for call in [
            "setup_stack_growsup(mm#0, 5, 6)",
            "do_stack_fault_up(mm#0, 3)",
        ] {
            let Translated::Skip(r) = tr(&w, call) else {
                panic!("{call}: upward stacks are not driven");
            };
            assert!(r.contains("CONFIG_STACK_GROWSUP (parisc) only"), "{r}");
        }
        let Translated::Skip(r) = tr(&w, "sys_madvise(mm#0, 1)") else {
            panic!("unknown entry points are not driven");
        };
        assert!(r.contains("\"sys_madvise\" is not one kdiff knows"), "{r}");
    }

    #[test]
    fn bad_arguments_are_errors() {
        let w = world();
        let e = translate(&w, &Call::parse("sys_munmap(mm#3, 0, 1)").unwrap()).unwrap_err();
        assert!(e.contains("mm#3 does not exist"), "{e}");
        let e = translate(&w, &Call::parse("sys_mremap_expand(mm#0, 2, 4)").unwrap()).unwrap_err();
        assert!(e.contains("no VMA starts at 2"), "{e}");
        let e = translate(&w, &Call::parse("do_file_fault(mm#0, 0)").unwrap()).unwrap_err();
        assert!(e.contains("no VMA at page 0"), "{e}");
        let e = translate(
            &w,
            &Call::parse("sys_mremap_move_shrink(mm#0, 1, 2, 2, 6)").unwrap(),
        )
        .unwrap_err();
        assert!(e.contains("not a shrinking move"), "{e}");
        let e = translate(
            &w,
            &Call::parse("sys_mremap_dontunmap(mm#0, 2, 2, 6)").unwrap(),
        )
        .unwrap_err();
        assert!(e.contains("not inside one VMA"), "{e}");
    }
}
