//! Sleeping locks as state: a reader/writer semaphore and a mutex, with holders named by model
//! thread, so that a blocked acquire is a state the explorer can see (no real blocking).

use crate::exec::host::ThreadId;

/// A reader/writer semaphore (`i_mmap_rwsem`, the anon_vma root rwsem, `mmap_lock`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RwSem {
    pub writer: Option<ThreadId>,
    /// One bit per reading thread.
    pub readers: u32,
}

impl RwSem {
    pub(crate) fn try_write(&mut self, t: ThreadId) -> bool {
        if self.writer.is_none() && self.readers == 0 {
            self.writer = Some(t);
            true
        } else {
            false
        }
    }
    pub(crate) fn try_read(&mut self, t: ThreadId) -> bool {
        if self.writer.is_none() {
            self.readers |= 1 << t;
            true
        } else {
            false
        }
    }
    pub(crate) fn held_write_by(&self, t: ThreadId) -> bool {
        self.writer == Some(t)
    }
    pub(crate) fn held_read_by(&self, t: ThreadId) -> bool {
        self.readers & (1 << t) != 0
    }
    /// Held by `t` for reading or for writing.
    pub(crate) fn held_by(&self, t: ThreadId) -> bool {
        self.held_read_by(t) || self.held_write_by(t)
    }
    pub(crate) fn is_free(&self) -> bool {
        self.writer.is_none() && self.readers == 0
    }
    /// Release a write hold; false if `t` did not hold it.
    pub(crate) fn unlock_write(&mut self, t: ThreadId) -> bool {
        if self.writer == Some(t) {
            self.writer = None;
            true
        } else {
            false
        }
    }
    /// Release a read hold; false if `t` did not hold it.
    pub(crate) fn unlock_read(&mut self, t: ThreadId) -> bool {
        if self.held_read_by(t) {
            self.readers &= !(1 << t);
            true
        } else {
            false
        }
    }
}

/// A mutex or spinlock (the flush_dcache lock).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mutex {
    pub owner: Option<ThreadId>,
}

impl Mutex {
    pub(crate) fn try_lock(&mut self, t: ThreadId) -> bool {
        if self.owner.is_none() {
            self.owner = Some(t);
            true
        } else {
            false
        }
    }
    pub(crate) fn held_by(&self, t: ThreadId) -> bool {
        self.owner == Some(t)
    }
    pub fn unlock(&mut self, t: ThreadId) -> bool {
        if self.owner == Some(t) {
            self.owner = None;
            true
        } else {
            false
        }
    }
}
