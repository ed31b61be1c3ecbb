//! Calls as a kernel developer reads them: the system call or kernel function an entry point
//! stands for, with its arguments named and in units (`[start,end)` in pages, `pgoff`,
//! `MAP_PRIVATE`/`MAP_SHARED`, the file by name). Traces, scenarios and the JSON's
//! `calls_kernel` use this form; the JSON's `calls` keep the stable machine form
//! (`sys_mmap(mm#0, file#0, 0, 1, 0, false)`) that `run` and `replay` read.

use crate::entry::EntryPoint;
use crate::exec::host::{ObjKind, Value};
use crate::world::scenario::Call;
use crate::world::World;

fn int(c: &Call, i: usize) -> Option<i64> {
    match c.args.get(i) {
        Some(Value::Int(n)) => Some(*n),
        _ => None,
    }
}

fn boolean(c: &Call, i: usize) -> Option<bool> {
    match c.args.get(i) {
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::Int(n)) => Some(*n != 0),
        _ => None,
    }
}

fn obj(c: &Call, i: usize) -> String {
    c.args.get(i).map_or("?".to_string(), |v| v.to_string())
}

/// A file argument by name: `/dev/zero`, the scope's file name, or `anonymous` for NULL.
fn file(c: &Call, i: usize, w: Option<&World>) -> String {
    match c.args.get(i) {
        Some(Value::Null) => "anonymous".to_string(),
        Some(Value::Obj(ObjKind::File, f)) => match w.and_then(|w| w.files.get(*f as usize)) {
            Some(file) if file.dev_zero => format!("/dev/zero (file#{f})"),
            Some(file) => format!("{} (file#{f})", file.name),
            None => format!("file#{f}"),
        },
        Some(v) => v.to_string(),
        None => "?".to_string(),
    }
}

/// A VMA argument with its range in `w`.
fn vma(c: &Call, i: usize, w: Option<&World>) -> String {
    match (c.args.get(i), w) {
        (Some(Value::Obj(ObjKind::Vma, v)), Some(w)) => match w.vmas.get(*v as usize) {
            Some(x) => format!("vma#{v} [{},{})", x.vm_start, x.vm_end),
            None => format!("vma#{v}"),
        },
        _ => obj(c, i),
    }
}

fn range(c: &Call, a: usize, b: usize) -> String {
    match (int(c, a), int(c, b)) {
        (Some(s), Some(e)) => format!("[{s},{e})"),
        _ => "[?,?)".to_string(),
    }
}

fn n(c: &Call, i: usize) -> String {
    int(c, i).map_or("?".to_string(), |v| v.to_string())
}

/// `c` in the kernel's terms, given the world just before it (for file names and VMA ranges);
/// the machine form for a function this module does not know.
pub(crate) fn kernel_form(c: &Call, w: Option<&World>) -> String {
    match EntryPoint::from_name(&c.func) {
        Some(p) if c.args.len() == p.entry().args.len() => entry_form(p, c, w),
        Some(_) => c.to_string(),
        None => walker_form(c),
    }
}

/// A call of entry point `p` with the arguments its record names.
fn entry_form(p: EntryPoint, c: &Call, w: Option<&World>) -> String {
    use EntryPoint::*;
    match p {
        Mmap | MmapFixed => {
            let shared = boolean(c, 5) == Some(true);
            let flags = match (shared, p == MmapFixed) {
                (true, false) => "MAP_SHARED",
                (false, false) => "MAP_PRIVATE",
                (true, true) => "MAP_SHARED|MAP_FIXED",
                (false, true) => "MAP_PRIVATE|MAP_FIXED",
            };
            let f = file(c, 1, w);
            let off = if matches!(c.args.get(1), Some(Value::Null)) {
                String::new()
            } else {
                format!(", pgoff {}", n(c, 4))
            };
            format!("mmap({}, {}, {f}{off}, {flags})", obj(c, 0), range(c, 2, 3))
        }
        Munmap => format!("munmap({}, {})", obj(c, 0), range(c, 1, 2)),
        Mprotect => {
            let prot = if boolean(c, 3) == Some(true) {
                "PROT_READ|PROT_WRITE"
            } else {
                "PROT_READ"
            };
            format!("mprotect({}, {}, {prot})", obj(c, 0), range(c, 1, 2))
        }
        MremapExpand => format!(
            "mremap({}, VMA at {}, grow in place to end {})",
            obj(c, 0),
            n(c, 1),
            n(c, 2)
        ),
        MremapShrink => format!(
            "mremap({}, VMA at {}, shrink to end {})",
            obj(c, 0),
            n(c, 1),
            n(c, 2)
        ),
        MremapMove => format!(
            "mremap({}, {}, {} pages, {} pages, MREMAP_MAYMOVE|MREMAP_FIXED, {})",
            obj(c, 0),
            n(c, 1),
            n(c, 2),
            n(c, 3),
            n(c, 4)
        ),
        MremapMoveShrink => format!(
            "mremap({}, {}, {} pages, {} pages, MREMAP_MAYMOVE|MREMAP_FIXED, {}): shrinking move",
            obj(c, 0),
            n(c, 1),
            n(c, 2),
            n(c, 3),
            n(c, 4)
        ),
        MremapDontunmap => format!(
            "mremap({}, {}, {} pages, {} pages, MREMAP_MAYMOVE|MREMAP_FIXED|MREMAP_DONTUNMAP, {})",
            obj(c, 0),
            n(c, 1),
            n(c, 2),
            n(c, 2),
            n(c, 3)
        ),
        SetupStackGrowsup => format!(
            "exec's VM_GROWSUP stack({}, {}) (CONFIG_STACK_GROWSUP)",
            obj(c, 0),
            range(c, 1, 2)
        ),
        StackFaultUp => format!(
            "write fault above a stack({}, page {}): expand_upwards (CONFIG_STACK_GROWSUP)",
            obj(c, 0),
            n(c, 1)
        ),
        MmapGrowsdown => format!(
            "mmap({}, {}, anonymous, MAP_PRIVATE|MAP_GROWSDOWN)",
            obj(c, 0),
            range(c, 1, 2)
        ),
        StackFault => format!(
            "write fault below a stack({}, page {}): expand_downwards",
            obj(c, 0),
            n(c, 1)
        ),
        ShiftDown => format!(
            "exec stack move({}, VMA at {}, down {} pages)",
            obj(c, 0),
            n(c, 1),
            n(c, 2)
        ),
        Fork => format!("fork({})", obj(c, 0)),
        Exit => format!("exit_mmap({})", obj(c, 0)),
        MunmapAbort => format!(
            "munmap({}, {}) with vma_iter_clear_gfp() failing: reattach_vmas",
            obj(c, 0),
            range(c, 1, 2)
        ),
        ForkFail => format!(
            "fork({}) with dup_mmap() failing after {} VMAs: the partial child torn down",
            obj(c, 0),
            n(c, 1)
        ),
        MmapFixedFail => format!(
            "mmap({}, {}, MAP_FIXED) failing after the clean-up: vms_abort_munmap_vmas leaves a gap",
            obj(c, 0),
            range(c, 1, 2)
        ),
        AnonymousFault => {
            format!("write fault({}, page {})", obj(c, 0), n(c, 1))
        }
        AnonymousFaultVmaLock => format!(
            "write fault under the per-VMA lock({}, page {})",
            obj(c, 0),
            n(c, 1)
        ),
        FileFault => format!("file read fault({}, page {})", obj(c, 0), n(c, 1)),
        ContractSplit => format!(
            "__split_vma({}, at {}, {})",
            vma(c, 1, w),
            n(c, 2),
            if int(c, 3).unwrap_or(0) != 0 {
                "new below"
            } else {
                "new above"
            }
        ),
        ContractShrink => format!("vma_shrink({}, end {})", vma(c, 1, w), n(c, 2)),
        ContractAdjustNext => format!(
            "commit_merge: {} ends at {} (pgoff {}), next starts there",
            vma(c, 1, w),
            n(c, 2),
            n(c, 3)
        ),
        ContractAdjustMiddle => format!(
            "commit_merge: prev grows to {1} (pgoff {2}), {0} starts there",
            vma(c, 1, w),
            n(c, 2),
            n(c, 3)
        ),
    }
}

/// A walker thread's call (`rmap_walk_file`, ...), or the machine form.
fn walker_form(c: &Call) -> String {
    let arity = |k: usize| c.args.len() == k;
    match c.func.as_str() {
        "rmap_walk_file" if arity(2) => format!("rmap_walk_file({}, pgoff {})", obj(c, 0), n(c, 1)),
        "rmap_walk_anon" if arity(2) => format!("rmap_walk_anon({}, pgoff {})", obj(c, 0), n(c, 1)),
        "flush_dcache_walk" if arity(2) => {
            format!("flush_dcache_folio walk({}, pgoff {})", obj(c, 0), n(c, 1))
        }
        "madvise_dontneed" if arity(3) => {
            format!("madvise({}, {}, MADV_DONTNEED)", obj(c, 0), range(c, 1, 2))
        }
        _ => c.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(s: &str) -> Call {
        Call::parse(s).unwrap()
    }

    #[test]
    fn mmap_reads_like_the_system_call() {
        let mut w = World::new();
        w.add_file("f0", false);
        w.add_file("zero", true);
        let k = |s: &str| kernel_form(&call(s), Some(&w));
        assert_eq!(
            k("sys_mmap(mm#0, file#0, 0, 1, 0, false)"),
            "mmap(mm#0, [0,1), f0 (file#0), pgoff 0, MAP_PRIVATE)"
        );
        assert_eq!(
            k("sys_mmap(mm#0, file#1, 2, 4, 2, true)"),
            "mmap(mm#0, [2,4), /dev/zero (file#1), pgoff 2, MAP_SHARED)"
        );
        assert_eq!(
            k("sys_mmap(mm#0, NULL, 2, 4, 2, false)"),
            "mmap(mm#0, [2,4), anonymous, MAP_PRIVATE)"
        );
        assert_eq!(k("sys_munmap(mm#1, 3, 5)"), "munmap(mm#1, [3,5))");
        assert_eq!(
            k("sys_mprotect(mm#0, 0, 2, false)"),
            "mprotect(mm#0, [0,2), PROT_READ)"
        );
    }

    #[test]
    fn unknown_functions_keep_the_machine_form() {
        let c = call("sys_frobnicate(mm#0, 1)");
        assert_eq!(kernel_form(&c, None), "sys_frobnicate(mm#0, 1)");
        // the wrong arity too: never a misleading rendering
        let c = call("sys_munmap(mm#0, 1)");
        assert_eq!(kernel_form(&c, None), "sys_munmap(mm#0, 1)");
    }
}
