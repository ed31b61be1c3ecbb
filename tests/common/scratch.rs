//! Scratch directories for tests that write files: unique per process, tag and call, and
//! removed (with everything in them) when the guard is dropped, so the suite leaves nothing
//! behind in the temporary directory.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory that is removed when dropped.
pub struct Scratch(PathBuf);

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty directory `rmapcheck-TAG-PID-N` under the temporary directory.
pub fn scratch(tag: &str) -> Scratch {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("rmapcheck-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch directory");
    Scratch(d)
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

/// A file in its own scratch directory: the path, and the directory removed when dropped.
pub struct ScratchFile {
    _dir: Scratch,
    path: PathBuf,
}

/// Write `text` to a file named `name` in a fresh scratch directory.
pub fn scratch_file(tag: &str, name: &str, text: &str) -> ScratchFile {
    let dir = scratch(tag);
    let path = dir.join(name);
    std::fs::write(&path, text).expect("scratch file");
    ScratchFile { _dir: dir, path }
}

impl Deref for ScratchFile {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.path
    }
}

impl AsRef<Path> for ScratchFile {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for ScratchFile {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}
