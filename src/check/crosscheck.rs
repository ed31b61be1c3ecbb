//! Cross-checking the incremental structural checks against the whole ones: when switched on
//! (tests), every per-step check and every end-of-call check also runs its whole form
//! (every tree validated) and records where the two answers differ. Off, it costs one relaxed
//! load per check.

use super::Violation;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

static ON: AtomicBool = AtomicBool::new(false);
static COMPARED: AtomicU64 = AtomicU64::new(0);
static DIFFERENCES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Switch cross-checking on for the rest of the process (every thread).
pub fn enable() {
    ON.store(true, Ordering::Relaxed);
}

/// Switch cross-checking off again.
pub fn disable() {
    ON.store(false, Ordering::Relaxed);
}

pub(crate) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// How many checks were run both ways so far.
pub fn compared() -> u64 {
    COMPARED.load(Ordering::Relaxed)
}

/// The differences recorded so far (taken: the record starts empty again).
pub fn take_differences() -> Vec<String> {
    std::mem::take(&mut *DIFFERENCES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Record the outcome of a cross-check ([`compare`], the interleaving explorer's audit of its
/// footprints): counted, and its difference kept when there is one.
pub(crate) fn record(difference: Option<String>) {
    COMPARED.fetch_add(1, Ordering::Relaxed);
    if let Some(what) = difference {
        DIFFERENCES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(what);
    }
}

/// Record the comparison of a check's incremental answer with its whole one.
pub(crate) fn compare(what: &str, incremental: &[Violation], whole: &[Violation]) {
    record(
        (incremental != whole)
            .then(|| format!("{what}: incremental {incremental:?}, whole {whole:?}")),
    );
}
