//! A patched copy of a kernel tree, for `check --kernel DIR --patch FILE`: the tree's
//! directories made again as real directories, each file a hard link to the tree's (a symbolic
//! link where the file system refuses one), except each file a patch or a C mutant edits, which
//! is a copy. The directories must be real: an `#include "../../x.h"` in a file reached through
//! a linked directory would resolve `..` in the tree itself and read the unpatched file.
//! Directories the build never reads are linked whole, and made real one level at a time when a
//! patch edits a file in them (kernel/fork.c, say), so that no edit reaches the tree through a
//! linked directory. Patches and edits change only the copies, so the tree itself is never
//! written; the harness build then reads the copy as if it were the tree (its cache key hashes
//! the patched bytes, and [`Overlay::salt`] adds the patches and edit specs themselves). Hard
//! links, not symbolic ones, because making the 18,000 links of a tree took 3 to 10 s of inode
//! allocation on ext4 under load, a third of a C mutant's build.
use std::path::{Component, Path, PathBuf};

/// A patched copy of a tree (removed when dropped).
pub struct Overlay {
    dir: tempfile::TempDir,
    tree: PathBuf,
    /// Hash input naming every patch and edit applied, in order.
    salt: Vec<u8>,
    /// What was applied, for the report (`patch FILE`, `c-mutant NAME`).
    pub applied: Vec<String>,
    /// The files made real copies, relative to the tree, in the order first edited.
    edited: std::sync::Mutex<Vec<PathBuf>>,
}

fn io(p: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", p.display())
}

/// `rel` as a relative path inside a tree: no `..`, no root.
pub fn inside(rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    let ok = !rel.is_empty()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    ok.then(|| p.to_path_buf())
}

impl Overlay {
    /// An overlay of `tree` in a fresh directory under `parent`.
    pub fn new(tree: &Path, parent: &Path) -> Result<Overlay, String> {
        let tree = tree.canonicalize().map_err(|e| io(tree, e))?;
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        let dir = tempfile::Builder::new()
            .prefix(".patched.")
            .tempdir_in(parent)
            .map_err(|e| io(parent, e))?;
        mirror(&tree, dir.path(), Path::new(""))?;
        Ok(Overlay {
            dir,
            tree,
            salt: Vec::new(),
            applied: Vec::new(),
            edited: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// The copy's root: give it to the harness build in place of the tree.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The tree the copy is of.
    pub fn tree(&self) -> &Path {
        &self.tree
    }

    /// The files patches and edits may have changed (made real copies), relative to the tree.
    pub fn edited(&self) -> Vec<PathBuf> {
        self.edited.lock().expect("edited").clone()
    }

    /// Bytes naming everything applied, for the build's cache key.
    pub fn salt(&self) -> &[u8] {
        &self.salt
    }

    pub(crate) fn note(&mut self, what: String, bytes: &[u8]) {
        if self.salt.is_empty() {
            // the layout of the copy (real directories), so that builds of an older layout,
            // which read files through linked directories, are not reused
            self.salt.extend_from_slice(b"overlay 2\0");
        }
        self.salt.extend_from_slice(what.as_bytes());
        self.salt.push(0);
        self.salt.extend_from_slice(bytes);
        self.salt.push(0);
        self.applied.push(what);
    }

    /// Make `rel` a real, writable file of the copy (a copy of the tree's, or absent when the
    /// tree has none), every directory above it real. Returns its path in the copy.
    pub fn materialise(&self, rel: &Path) -> Result<PathBuf, String> {
        let mut at = PathBuf::new();
        for c in rel.parent().into_iter().flat_map(Path::components) {
            at.push(c);
            let dir = self.dir.path().join(&at);
            match std::fs::symlink_metadata(&dir) {
                // a directory linked whole: real from here down to `rel`
                Ok(m) if m.file_type().is_symlink() => {
                    std::fs::remove_file(&dir).map_err(|e| io(&dir, e))?;
                    std::fs::create_dir(&dir).map_err(|e| io(&dir, e))?;
                    mirror_level(&self.tree.join(&at), &dir)?;
                }
                Ok(_) => {}
                Err(_) => std::fs::create_dir(&dir).map_err(|e| io(&dir, e))?,
            }
        }
        let here = self.dir.path().join(rel);
        let first = {
            let mut ed = self.edited.lock().expect("edited");
            let first = !ed.iter().any(|e| e == rel);
            if first {
                ed.push(rel.to_path_buf());
            }
            first
        };
        if first {
            // a link (hard or symbolic) shares the tree's file: replace it by a copy
            if std::fs::symlink_metadata(&here).is_ok() {
                std::fs::remove_file(&here).map_err(|e| io(&here, e))?;
            }
            let src = self.tree.join(rel);
            if src.is_file() {
                std::fs::copy(&src, &here).map_err(|e| io(&src, e))?;
            }
        }
        Ok(here)
    }
}

/// Directories of the tree the harness build never reads: linked whole, not mirrored.
const NOT_READ: &[&str] = &[
    "kernel",
    "tools/perf",
    "tools/testing/selftests",
    "tools/power",
    "tools/bpf",
    "tools/sched_ext",
    "tools/net",
    "tools/tracing",
];

/// Make `dst` a mirror of `src` (at `rel` in the tree): real directories, files linked.
fn mirror(src: &Path, dst: &Path, rel: &Path) -> Result<(), String> {
    for e in std::fs::read_dir(src).map_err(|e| io(src, e))? {
        let e = e.map_err(|e| io(src, e))?;
        let to = dst.join(e.file_name());
        let r = rel.join(e.file_name());
        if e.path().is_dir() && !NOT_READ.iter().any(|n| Path::new(n) == r) {
            std::fs::create_dir(&to).map_err(|e| io(&to, e))?;
            mirror(&e.path(), &to, &r)?;
        } else {
            link(&e, &to)?;
        }
    }
    Ok(())
}

/// One level of `src` in `dst`: its files linked, its directories linked whole.
fn mirror_level(src: &Path, dst: &Path) -> Result<(), String> {
    for e in std::fs::read_dir(src).map_err(|e| io(src, e))? {
        let e = e.map_err(|e| io(src, e))?;
        link(&e, &dst.join(e.file_name()))?;
    }
    Ok(())
}

/// `to` made a link to the tree's entry `e`: a hard link for a regular file (a symbolic one
/// where the file system refuses: another device, protected_hardlinks), a symbolic link to
/// the tree's path for a directory or a symbolic link, as before.
fn link(e: &std::fs::DirEntry, to: &Path) -> Result<(), String> {
    let regular = e.file_type().is_ok_and(|t| t.is_file());
    if regular && std::fs::hard_link(e.path(), to).is_ok() {
        return Ok(());
    }
    std::os::unix::fs::symlink(e.path(), to).map_err(|err| io(to, err))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_symlink(p: &Path) -> bool {
        std::fs::symlink_metadata(p)
            .unwrap()
            .file_type()
            .is_symlink()
    }

    #[test]
    fn a_materialised_file_is_a_copy_and_the_tree_is_untouched() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("mm/sub")).unwrap();
        std::fs::write(t.path().join("mm/vma.c"), "one\n").unwrap();
        std::fs::write(t.path().join("mm/vma.h"), "h\n").unwrap();
        std::fs::write(t.path().join("Makefile"), "m\n").unwrap();
        let parent = tempfile::tempdir().unwrap();
        let o = Overlay::new(t.path(), parent.path()).unwrap();
        let p = o.materialise(Path::new("mm/vma.c")).unwrap();
        std::fs::write(&p, "two\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(t.path().join("mm/vma.c")).unwrap(),
            "one\n"
        );
        assert_eq!(
            std::fs::read_to_string(o.root().join("mm/vma.c")).unwrap(),
            "two\n"
        );
        // a second edit of the same file keeps the first one's copy
        let again = o.materialise(Path::new("mm/vma.c")).unwrap();
        assert_eq!(std::fs::read_to_string(again).unwrap(), "two\n");
        assert_eq!(
            std::fs::read_to_string(o.root().join("mm/vma.h")).unwrap(),
            "h\n"
        );
        // the untouched files are links (hard ones here: the same inode as the tree's)
        use std::os::unix::fs::MetadataExt;
        for f in ["mm/vma.h", "Makefile"] {
            let (a, b) = (
                std::fs::metadata(t.path().join(f)).unwrap(),
                std::fs::metadata(o.root().join(f)).unwrap(),
            );
            assert_eq!((a.dev(), a.ino()), (b.dev(), b.ino()), "{f}");
        }
        assert!(!is_symlink(&o.root().join("mm/sub")));
        assert!(inside("../etc/passwd").is_none());
        assert!(inside("/etc/passwd").is_none());
        assert_eq!(inside("mm/vma.c"), Some(PathBuf::from("mm/vma.c")));
    }

    /// A directory the build never reads is linked whole; an edit to a file in it (a hunk of a
    /// series to kernel/fork.c) makes the directories above the file real first, so that the
    /// edit lands in the copy, never in the tree through the link.
    #[test]
    fn an_edit_under_a_directory_linked_whole_never_reaches_the_tree() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("kernel/sched")).unwrap();
        std::fs::write(t.path().join("kernel/fork.c"), "fork\n").unwrap();
        std::fs::write(t.path().join("kernel/exit.c"), "exit\n").unwrap();
        std::fs::write(t.path().join("kernel/sched/core.c"), "core\n").unwrap();
        let parent = tempfile::tempdir().unwrap();
        let o = Overlay::new(t.path(), parent.path()).unwrap();
        assert!(is_symlink(&o.root().join("kernel")));
        let p = o.materialise(Path::new("kernel/fork.c")).unwrap();
        std::fs::write(&p, "patched\n").unwrap();
        let q = o.materialise(Path::new("kernel/sched/core.c")).unwrap();
        std::fs::write(&q, "patched too\n").unwrap();
        let created = o.materialise(Path::new("kernel/new.c")).unwrap();
        std::fs::write(&created, "new\n").unwrap();
        for (f, was) in [
            ("kernel/fork.c", "fork\n"),
            ("kernel/sched/core.c", "core\n"),
        ] {
            assert_eq!(
                std::fs::read_to_string(t.path().join(f)).unwrap(),
                was,
                "{f}"
            );
        }
        assert!(!t.path().join("kernel/new.c").exists());
        assert_eq!(
            std::fs::read_to_string(o.root().join("kernel/fork.c")).unwrap(),
            "patched\n"
        );
        assert_eq!(
            std::fs::read_to_string(o.root().join("kernel/exit.c")).unwrap(),
            "exit\n"
        );
        assert!(!is_symlink(&o.root().join("kernel")));
        assert!(!is_symlink(&o.root().join("kernel/sched")));
    }
}
