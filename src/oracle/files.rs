//! The files that stand for the model's files: a temp file for each regular model file and
//! /dev/zero for the zero file, opened once per run so that every mapping of one model file
//! shares one `struct file` (the kernel merges only VMAs of the same file). The temp files are
//! unlinked as soon as they are open, so nothing stays behind even if the run is killed. Each
//! file's (device, inode) as /proc/PID/maps shows it is learnt by mapping it once.

use super::procmaps::parse_smaps;
use super::PAGE;
use std::fs::{File, OpenOptions};
use std::os::fd::{AsRawFd, RawFd};

/// The open files, indexed like the model world's files.
pub(crate) struct Files {
    files: Vec<File>,
    /// (device, inode) as the kernel's maps show it.
    pub ids: Vec<(u64, u64)>,
    /// `f0`, `zero`, ...: the model's names.
    pub names: Vec<String>,
}

impl Files {
    /// Open one file per model file (`(name, dev_zero)`), each regular one `pages` pages long.
    pub(crate) fn open(model: &[(String, bool)], pages: u64) -> Result<Files, String> {
        let dir = tempfile::Builder::new()
            .prefix("rmapcheck-kdiff-")
            .tempdir()
            .map_err(|e| format!("cannot make a temp directory: {e}"))?;
        let mut out = Files {
            files: Vec::new(),
            ids: Vec::new(),
            names: Vec::new(),
        };
        for (i, (name, dev_zero)) in model.iter().enumerate() {
            let f = if *dev_zero {
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open("/dev/zero")
                    .map_err(|e| format!("/dev/zero: {e}"))?
            } else {
                let path = dir.path().join(format!("file{i}"));
                let f = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .open(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                f.set_len(pages * PAGE)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let _ = std::fs::remove_file(&path);
                f
            };
            out.ids.push(identity(f.as_raw_fd())?);
            out.names.push(name.clone());
            out.files.push(f);
        }
        dir.close()
            .map_err(|e| format!("cannot remove the temp directory: {e}"))?;
        Ok(out)
    }

    /// The raw descriptors, indexed like the model's files.
    pub(crate) fn fds(&self) -> Vec<RawFd> {
        self.files.iter().map(|f| f.as_raw_fd()).collect()
    }
}

/// Map one page of `fd` anywhere and read back the (device, inode) the kernel shows for it.
fn identity(fd: RawFd) -> Result<(u64, u64), String> {
    // SAFETY: a fresh private read-only mapping at an address of the kernel's choosing; it is
    // unmapped below and never touched.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            PAGE as usize,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(format!(
            "cannot map a model file: {}",
            std::io::Error::last_os_error()
        ));
    }
    let a = p as u64;
    let text = std::fs::read_to_string("/proc/self/smaps");
    // SAFETY: unmapping the page mapped above.
    unsafe {
        libc::munmap(p, PAGE as usize);
    }
    let text = text.map_err(|e| format!("/proc/self/smaps: {e}"))?;
    let v = parse_smaps(&text, a, a + PAGE)?;
    v.first()
        .map(|k| (k.dev, k.inode))
        .ok_or_else(|| "the probe mapping of a model file is not in /proc/self/smaps".into())
}
