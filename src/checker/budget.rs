//! The bounds of one search run: wall time, resident memory, distinct states, and a request to
//! stop (SIGINT or SIGTERM). Every search polls its [`Budget`] at each call it applies (and each
//! interleaving state it expands), so a bound holds within one call's time of being reached in
//! every phase: sequential calls, calls against walkers, interleavings and `compare`. A search
//! whose budget ran out reports `incomplete`, never `holds`.
//!
//! Memory is the process's resident set as the kernel counts it (`/proc/self/statm`), not an
//! estimate, so worlds held in frontiers and worker threads are included. It is read at the
//! first poll and then at most once every [`RSS_EVERY`] (a read costs a few microseconds of
//! system calls, a poll otherwise tens of nanoseconds), so the memory bound holds within what
//! the search allocates in that time, about a megabyte at the rates searches run. A table that
//! is about to double (the seen-set) asks first ([`Budget::before_growth`]): the new table is
//! allocated while the old one is still there, a jump a later poll would see too late.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Least time between two reads of the resident set, in nanoseconds (10 ms).
const RSS_EVERY: u64 = 10_000_000;

/// [`Budget::rss_read_at`] before the first read.
const NEVER: u64 = u64::MAX;

/// The process-wide stop request, set by the signal handlers.
fn stop_flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Make SIGINT and SIGTERM request a stop instead of killing the process: the running search
/// ends at its next poll with `incomplete (interrupted)`. A second signal while a stop is
/// pending exits at once with status 130.
pub fn install_signal_handlers() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = stop_flag();
    for sig in [SIGINT, SIGTERM] {
        // the conditional shutdown must be registered first so that it sees the flag unset the
        // first time
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(flag));
        let _ = signal_hook::flag::register(sig, Arc::clone(flag));
    }
}

/// Whether a stop was requested (by a signal or [`request_stop`]).
pub(crate) fn stop_requested() -> bool {
    stop_flag().load(Ordering::Relaxed)
}

/// Request a stop as a signal would (tests use it).
pub fn request_stop() {
    stop_flag().store(true, Ordering::Relaxed);
}

/// Clear a stop request (tests use it).
pub fn clear_stop() {
    stop_flag().store(false, Ordering::Relaxed);
}

/// The resident set size of this process in bytes, from `/proc/self/statm`; 0 if unreadable.
pub(crate) fn resident_bytes() -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/statm") else {
        return 0;
    };
    let pages: u64 = s
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * page_size()
}

/// The peak resident set size of this process in bytes (`VmHWM`); 0 if unreadable.
pub(crate) fn peak_resident_bytes() -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Reset the peak resident set size (`VmHWM`) to the current one (`/proc/self/clear_refs`,
/// value 5), so that a peak read later is that of what ran since; without that file (not
/// Linux, or a kernel that refuses) the peak stays the process's.
pub(crate) fn reset_peak_resident() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as u64
    } else {
        4096
    }
}

/// Limits of one search, shared by its worker threads.
#[derive(Debug)]
pub struct Budget {
    start: Instant,
    max_seconds: f64,
    max_bytes: u64,
    /// Nanoseconds from `start` to the last read of the resident set ([`NEVER`] before it).
    rss_read_at: AtomicU64,
    /// Resident bytes at the last read.
    rss: AtomicU64,
    /// Why the budget ran out, once it has.
    spent: Mutex<Option<String>>,
    /// Whether `spent` holds a reason, so that a poll of a live budget takes no lock.
    is_spent: AtomicBool,
}

impl Budget {
    /// A budget of `max_seconds` of wall time and `max_memory_mb` MiB resident, from now.
    pub fn new(max_seconds: f64, max_memory_mb: usize) -> Budget {
        Budget {
            start: Instant::now(),
            max_seconds,
            max_bytes: (max_memory_mb as u64) << 20,
            rss_read_at: AtomicU64::new(NEVER),
            rss: AtomicU64::new(0),
            spent: Mutex::new(None),
            is_spent: AtomicBool::new(false),
        }
    }

    /// A budget that only a stop request ends.
    pub fn unlimited() -> Arc<Budget> {
        Arc::new(Budget::new(f64::INFINITY, usize::MAX >> 21))
    }

    /// Seconds since the budget was made.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Why the search must stop now, if it must: a stop request, the time bound or the memory
    /// bound. Once spent, a budget stays spent.
    pub(crate) fn poll(&self) -> Option<String> {
        if self.is_spent.load(Ordering::Acquire) {
            return self.spent();
        }
        let now = self.start.elapsed();
        let reason = if stop_requested() {
            "interrupted".to_string()
        } else if now.as_secs_f64() > self.max_seconds {
            format!("time bound {}s reached", self.max_seconds)
        } else if self.over_memory(u64::try_from(now.as_nanos()).unwrap_or(NEVER - 1)) {
            self.memory_reason()
        } else {
            return None;
        };
        self.spend(reason)
    }

    /// Why the search must stop before it allocates `extra` bytes at once (a table about to
    /// double): the memory bound, if the resident set read now and `extra` together pass it.
    /// The poll alone would see such a jump only after it, too late to keep the bound. Once
    /// spent this way, the budget stays spent.
    pub(crate) fn before_growth(&self, extra: u64) -> Option<String> {
        if self.is_spent.load(Ordering::Acquire) {
            return self.spent();
        }
        let rss = resident_bytes();
        self.rss.store(rss, Ordering::Relaxed);
        if rss.saturating_add(extra) <= self.max_bytes {
            return None;
        }
        self.spend(self.memory_reason())
    }

    fn memory_reason(&self) -> String {
        format!("memory bound {} MiB reached", self.max_bytes >> 20)
    }

    /// Mark the budget spent for `reason`, unless another thread spent it first; the reason
    /// it stays spent for.
    fn spend(&self, reason: String) -> Option<String> {
        if let Ok(mut g) = self.spent.lock() {
            let kept = g.get_or_insert(reason).clone();
            self.is_spent.store(true, Ordering::Release);
            return Some(kept);
        }
        Some(reason)
    }

    /// Whether the resident set is over the bound, `now` nanoseconds after the start: read at
    /// the first poll and when [`RSS_EVERY`] has passed since the last read (by one thread;
    /// the others judge by the last value read).
    fn over_memory(&self, now: u64) -> bool {
        let last = self.rss_read_at.load(Ordering::Relaxed);
        if (last == NEVER || now.saturating_sub(last) >= RSS_EVERY)
            && self
                .rss_read_at
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.rss.store(resident_bytes(), Ordering::Relaxed);
        }
        self.rss.load(Ordering::Relaxed) > self.max_bytes
    }

    /// Why the budget ran out, if it has (without polling again).
    pub fn spent(&self) -> Option<String> {
        self.spent.lock().map_or(None, |g| g.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_growth_past_the_memory_bound_spends_the_budget_before_it_happens() {
        let b = Budget::new(f64::INFINITY, 4096);
        assert_eq!(b.before_growth(1 << 20), None, "a megabyte fits in 4 GiB");
        assert_eq!(b.poll(), None);
        let r = b.before_growth(8 << 30).expect("8 GiB more does not fit");
        assert!(r.contains("memory bound 4096 MiB"), "{r}");
        assert_eq!(b.poll(), Some(r), "spent stays spent");
    }

    #[test]
    fn a_zero_time_budget_is_spent_and_stays_spent() {
        let b = Budget::new(1e-9, 1 << 20);
        std::thread::sleep(std::time::Duration::from_millis(1));
        let r = b.poll().expect("spent");
        assert!(r.contains("time bound"), "{r}");
        assert_eq!(b.spent().as_deref(), Some(r.as_str()));
    }

    #[test]
    fn a_memory_budget_below_the_resident_set_is_spent() {
        let b = Budget::new(1e9, 1);
        assert!(resident_bytes() > 1 << 20);
        let r = b.poll().expect("spent");
        assert!(r.contains("memory bound 1 MiB"), "{r}");
    }

    #[test]
    fn a_resident_set_that_grows_past_the_bound_is_seen_within_the_read_interval() {
        // a bound just above the resident set now: not spent, until the set grows past it
        let b = Budget::new(1e9, (resident_bytes() >> 20) as usize + 128);
        assert_eq!(b.poll(), None);
        let grown: Vec<u8> = std::hint::black_box(vec![1; 256 << 20]);
        std::thread::sleep(std::time::Duration::from_nanos(RSS_EVERY));
        let r = b.poll().expect("spent once the set is read again");
        assert!(r.contains("memory bound"), "{r}");
        drop(grown);
    }

    #[test]
    fn a_reset_peak_is_still_at_least_the_current_resident_set() {
        reset_peak_resident();
        // the resident set first: the peak read after it has seen it (other tests of this
        // binary allocate meanwhile, so reading the peak first could see a smaller figure)
        let now = resident_bytes();
        assert!(peak_resident_bytes() >= now / 2);
    }

    #[test]
    fn the_peak_is_at_least_the_current_resident_set() {
        let now = resident_bytes();
        assert!(now > 0);
        assert!(peak_resident_bytes() >= now / 2);
    }
}
