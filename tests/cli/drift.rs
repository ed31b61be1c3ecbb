//! `rmapcheck drift`: the model's kernel references against a (small, made-up) kernel tree:
//! a function in place, one that moved to another file, one gone, the release from the
//! Makefile, and the exit codes.

use crate::scratch::scratch;
use std::process::Command;

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn drift_reports_in_place_moved_and_gone() {
    let k = scratch("drift");
    write(
        &k,
        "Makefile",
        "VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 0\nEXTRAVERSION = -rc4\n",
    );
    // vma_complete where the model says; find_vma_prev moved from mm/mmap.c to mm/vma.c
    write(
        &k,
        "mm/vma.c",
        "/* vma_complete() is called ... */\n\
         static void vma_complete(struct vma_prepare *vp);\n\
         static void vma_complete(struct vma_prepare *vp, struct vma_iterator *vmi,\n\
         \t\t\t struct mm_struct *mm)\n{\n\tvma_complete_helper(vp);\n}\n\
         struct vm_area_struct *find_vma_prev(struct mm_struct *mm, unsigned long addr,\n\
         \t\t\tstruct vm_area_struct **pprev)\n{\n}\n",
    );
    write(&k, "mm/mmap.c", "/* nothing here any more */\n");
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(["drift", "models/v7.3-rc4/baseline.rmap", "--kernel"])
        .arg(&*k)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("(release 7.3.0-rc4)"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("ok     vma_complete ") && l.contains("mm/vma.c:3 vma_complete")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("MOVED  find_vma_prev ")
            && l.contains("mm/mmap.c -> mm/vma.c:8 find_vma_prev")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("GONE   vma_prepare ") && l.contains("no definition found")),
        "{out}"
    );
    assert!(out.contains("1 in place, 1 moved,"), "{out}");
    // bad input
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(["drift", "--kernel", "/no/such/tree"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a directory"));
}
