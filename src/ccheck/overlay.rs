//! A patched copy of a kernel tree, for `check --kernel DIR --patch FILE`: a directory whose
//! entries link to the tree's, except along the path to each file a patch or a C mutant edits,
//! where the directories are real and the file is a copy. Patches and edits change only the
//! copies, so the tree itself is never written; the harness build then reads the copy as if it
//! were the tree (its cache key hashes the patched bytes, and [`Overlay::salt`] adds the
//! patches and edit specs themselves).

use std::path::{Component, Path, PathBuf};

/// A patched copy of a tree (removed when dropped).
pub struct Overlay {
    dir: tempfile::TempDir,
    tree: PathBuf,
    /// Hash input naming every patch and edit applied, in order.
    salt: Vec<u8>,
    /// What was applied, for the report (`patch FILE`, `c-mutant NAME`).
    pub applied: Vec<String>,
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
        link_children(&tree, dir.path())?;
        Ok(Overlay {
            dir,
            tree,
            salt: Vec::new(),
            applied: Vec::new(),
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

    /// Bytes naming everything applied, for the build's cache key.
    pub fn salt(&self) -> &[u8] {
        &self.salt
    }

    pub(crate) fn note(&mut self, what: String, bytes: &[u8]) {
        self.salt.extend_from_slice(what.as_bytes());
        self.salt.push(0);
        self.salt.extend_from_slice(bytes);
        self.salt.push(0);
        self.applied.push(what);
    }

    /// Make `rel` a real, writable file of the copy (a copy of the tree's, or absent when the
    /// tree has none), every directory above it real. Returns its path in the copy.
    pub fn materialise(&self, rel: &Path) -> Result<PathBuf, String> {
        let mut here = self.dir.path().to_path_buf();
        let mut src = self.tree.clone();
        let parts: Vec<_> = rel.components().collect();
        for (i, c) in parts.iter().enumerate() {
            here.push(c);
            src.push(c);
            let last = i + 1 == parts.len();
            let md = std::fs::symlink_metadata(&here).ok();
            let is_link = md.as_ref().is_some_and(|m| m.file_type().is_symlink());
            if last {
                if is_link {
                    std::fs::remove_file(&here).map_err(|e| io(&here, e))?;
                    std::fs::copy(&src, &here).map_err(|e| io(&src, e))?;
                }
            } else if is_link {
                std::fs::remove_file(&here).map_err(|e| io(&here, e))?;
                std::fs::create_dir(&here).map_err(|e| io(&here, e))?;
                link_children(&src, &here)?;
            } else if md.is_none() {
                std::fs::create_dir(&here).map_err(|e| io(&here, e))?;
            }
        }
        Ok(here)
    }
}

/// Link every entry of `src` into `dst`.
fn link_children(src: &Path, dst: &Path) -> Result<(), String> {
    for e in std::fs::read_dir(src).map_err(|e| io(src, e))? {
        let e = e.map_err(|e| io(src, e))?;
        let to = dst.join(e.file_name());
        std::os::unix::fs::symlink(e.path(), &to).map_err(|e| io(&to, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            std::fs::read_to_string(o.root().join("mm/vma.h")).unwrap(),
            "h\n"
        );
        assert!(std::fs::symlink_metadata(o.root().join("mm/vma.h"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(std::fs::symlink_metadata(o.root().join("Makefile"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(inside("../etc/passwd").is_none());
        assert!(inside("/etc/passwd").is_none());
        assert_eq!(inside("mm/vma.c"), Some(PathBuf::from("mm/vma.c")));
    }
}
