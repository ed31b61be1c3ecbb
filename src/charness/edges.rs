//! The edge map of a harness built for fuzzing (`build::build_fuzz`): a file of
//! [`COVER_MAP_SIZE`] bytes that the harness process maps shared (cglue/cover.c, named by
//! [`COVER_MAP_ENV`] in its environment) and counts each edge between two basic blocks of the
//! kernel's code into, and that the fuzz target maps too, clears before an input and hands to
//! libFuzzer after it. The file lies in /dev/shm where there is one (memory, not disk).

use super::build::{COVER_MAP_ENV, COVER_MAP_SIZE};

/// A shared edge map, unmapped and removed when dropped.
pub struct EdgeMap {
    file: tempfile::NamedTempFile,
    map: *mut u8,
}

// SAFETY: the mapping is owned by the EdgeMap alone (the harness writes it from another
// process, which no Rust reference aliasing rule covers).
unsafe impl Send for EdgeMap {}

impl EdgeMap {
    /// A fresh map, all zero.
    pub fn new() -> Result<EdgeMap, String> {
        let dir = std::path::Path::new("/dev/shm");
        let file = if dir.is_dir() {
            tempfile::Builder::new()
                .prefix("rmapcheck-edges.")
                .tempfile_in(dir)
        } else {
            tempfile::Builder::new()
                .prefix("rmapcheck-edges.")
                .tempfile()
        }
        .map_err(|e| format!("cannot make the edge map: {e}"))?;
        file.as_file()
            .set_len(COVER_MAP_SIZE as u64)
            .map_err(|e| format!("{}: {e}", file.path().display()))?;
        use std::os::fd::AsRawFd;
        // SAFETY: a shared read-write mapping of a file of exactly COVER_MAP_SIZE bytes; the
        // pointer is checked and unmapped in Drop only.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                COVER_MAP_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_file().as_raw_fd(),
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(format!(
                "{}: mmap: {}",
                file.path().display(),
                std::io::Error::last_os_error()
            ));
        }
        Ok(EdgeMap {
            file,
            map: map.cast(),
        })
    }

    /// The harness's environment entry that makes it count into this map.
    pub fn env(&self) -> (String, String) {
        (
            COVER_MAP_ENV.to_string(),
            self.file.path().to_string_lossy().into_owned(),
        )
    }

    /// Zero every count.
    pub fn clear(&mut self) {
        // SAFETY: the mapping is COVER_MAP_SIZE bytes, writable
        unsafe { std::ptr::write_bytes(self.map, 0, COVER_MAP_SIZE) }
    }

    /// The counts (written by a harness process while one runs).
    pub fn counts(&self) -> &[u8] {
        // SAFETY: the mapping is COVER_MAP_SIZE readable bytes alive as long as self; a
        // harness still writing while this is read only changes counts, never the layout
        unsafe { std::slice::from_raw_parts(self.map, COVER_MAP_SIZE) }
    }
}

impl Drop for EdgeMap {
    fn drop(&mut self) {
        // SAFETY: mapped in new() with this length, not used after
        unsafe {
            libc::munmap(self.map.cast(), COVER_MAP_SIZE);
        }
    }
}
