//! Replaying call sequences on the running kernel: for each sequence, start the processes,
//! make each call's system call, and after every call compare every live mm's layout (read from
//! /proc/PID/smaps) with the model's. Collects the counts and the mismatches for the report.

use super::compare::compare;
use super::driver::Session;
use super::expected::Release;
use super::files::Files;
use super::ghost::Ghost;
use super::layout::{kernel_layout, model_layout};
pub use super::mismatch::Mismatch;
use super::procmaps::parse_smaps;
use super::sequences::{generate, Gen, GenStats, OnReplay, Replayed, Seq};
use super::{BASE, PAGE};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// Options of a kdiff run.
#[derive(Clone, Debug)]
pub struct Options {
    pub gen: Gen,
    /// Longest wait for one system call's reply.
    pub timeout: Duration,
    /// Stop after this many mismatching sequences (0: never).
    pub stop_after: usize,
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    pub release: String,
    pub sequences: usize,
    /// Calls made on the kernel and compared after.
    pub calls: usize,
    /// mm layouts compared (one per live mm after each call).
    pub layouts: usize,
    pub expected: BTreeMap<&'static str, usize>,
    /// Mismatches no known finding explains.
    pub mismatches: Vec<Mismatch>,
    /// Mismatches explained by a known model finding, by name (the first few kept in full).
    pub known: BTreeMap<&'static str, usize>,
    pub known_examples: Vec<Mismatch>,
    pub gen: GenStats,
    pub seconds: f64,
}

/// Check that the kernel lets us map at the base address: the range of `pages` pages (and a
/// page either side, so nothing of ours can merge with a foreign mapping) is free and a
/// MAP_FIXED_NOREPLACE mapping there lands where asked.
pub(crate) fn check_base(pages: u64) -> Result<(), String> {
    let lo = BASE - PAGE;
    let hi = BASE + (pages + 1) * PAGE;
    let maps = std::fs::read_to_string("/proc/self/smaps")
        .map_err(|e| format!("/proc/self/smaps: {e}"))?;
    if let Some(v) = parse_smaps(&maps, lo, hi)?.first() {
        return Err(format!(
            "the kernel refuses the base address {BASE:#x}: {:#x}-{:#x} is already mapped",
            v.start, v.end
        ));
    }
    let len = (pages * PAGE) as usize;
    // SAFETY: a fresh anonymous mapping at an address checked to be free; unmapped below.
    let p = unsafe {
        libc::mmap(
            BASE as *mut libc::c_void,
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(format!(
            "the kernel refuses the base address {BASE:#x}: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: unmapping what was mapped above.
    unsafe {
        libc::munmap(p, len);
    }
    if p as u64 != BASE {
        return Err(format!(
            "the kernel refuses the base address {BASE:#x}: MAP_FIXED_NOREPLACE placed it at {:#x} (kernel older than 4.17?)",
            p as u64
        ));
    }
    Ok(())
}

/// The model's files of world `w` as (name, dev_zero).
fn model_files(w: &World) -> Vec<(String, bool)> {
    w.files
        .iter()
        .map(|f| (f.name.clone(), f.dev_zero))
        .collect()
}

/// Run the sequences `opts.gen` of `scope` on the kernel. An error means the run could not go
/// on (base address refused, a process that died or hung).
pub fn kdiff(prog: &Program, scope: &Scope, opts: &Options) -> Result<Report, String> {
    kdiff_with(prog, scope, opts, &mut |_| {})
}

/// [`kdiff`], reporting its figures ([`Replayed`]) about once a second; a stop request
/// (SIGINT/SIGTERM) ends the run with an error after the sequence in progress.
pub(crate) fn kdiff_with(
    prog: &Program,
    scope: &Scope,
    opts: &Options,
    progress: OnReplay<'_>,
) -> Result<Report, String> {
    let t0 = Instant::now();
    let mut last = Instant::now();
    let rel = Release::running();
    check_base(scope.pages)?;
    let w0 = scope
        .initial_scenario()
        .build()
        .map_err(|e| e.to_string())?
        .canonical();
    // pgoff up to 2 * pages (offsets) plus an expansion: make every file large enough to fault
    let files = Files::open(&model_files(&w0), 4 * scope.pages + scope.max_len + 8)?;
    let fds = files.fds();
    let mut rep = Report {
        release: rel.text.clone(),
        ..Report::default()
    };
    let mut fatal = None;
    let gen = generate(prog, scope, &w0, opts.gen, &mut |seq: &Seq| {
        if crate::checker::budget::stop_requested() {
            fatal = Some(format!(
                "interrupted after {} sequences: the comparison is incomplete",
                rep.sequences
            ));
            return ControlFlow::Break(());
        }
        if last.elapsed().as_secs_f64() >= 1.0 {
            progress(&Replayed {
                sequences: rep.sequences,
                calls: rep.calls,
                seconds: t0.elapsed().as_secs_f64(),
            });
            last = Instant::now();
        }
        rep.sequences += 1;
        match run_one(seq, &fds, &files, scope.pages, opts.timeout, &rel, &mut rep) {
            Ok(None) => {}
            Ok(Some(m)) if m.known.is_some() => {
                *rep.known.entry(m.known.unwrap_or_default()).or_default() += 1;
                if rep.known_examples.len() < 3 {
                    rep.known_examples.push(m);
                }
            }
            Ok(Some(m)) => {
                rep.mismatches.push(m);
                if opts.stop_after > 0 && rep.mismatches.len() >= opts.stop_after {
                    return ControlFlow::Break(());
                }
            }
            Err(e) => {
                fatal = Some(format!("{e} (sequence: {})", join(&seq.calls)));
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    if let Some(e) = fatal {
        return Err(e);
    }
    rep.gen = gen;
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}

fn join(calls: &[Call]) -> String {
    calls
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Run one sequence; Some on the first mismatch.
fn run_one(
    seq: &Seq,
    fds: &[i32],
    files: &Files,
    pages: u64,
    timeout: Duration,
    rel: &Release,
    rep: &mut Report,
) -> Result<Option<Mismatch>, String> {
    let mut s = Session::start(seq.mms(), BASE, timeout)?;
    let mut ghost = Ghost::default();
    let (lo, hi) = (BASE, BASE + pages * PAGE);
    for (i, op) in seq.ops.iter().enumerate() {
        let refused = match op {
            Some(op) => {
                let r = s.op(op, fds)?;
                ghost.after(op, &seq.worlds[i]);
                r.err()
            }
            None => None,
        };
        rep.calls += 1;
        let w = &seq.worlds[i + 1];
        for (mm, m) in w.mms.iter().enumerate() {
            if m.freed {
                continue;
            }
            let pid = s
                .pid(mm)
                .ok_or_else(|| format!("model mm#{mm} has no process"))?;
            let text = std::fs::read_to_string(format!("/proc/{pid}/smaps"))
                .map_err(|e| format!("/proc/{pid}/smaps: {e}"))?;
            let kernel = kernel_layout(&parse_smaps(&text, lo, hi)?, BASE, &files.ids);
            let model = model_layout(w, mm);
            rep.layouts += 1;
            let v = compare(&model, &kernel, &ghost.written(mm), rel);
            let mismatch = match (&refused, v.mismatch) {
                (Some(e), _) if mm == op.as_ref().map_or(0, |o| o.mm()) => {
                    Some((format!("the kernel refused the call: {e}"), Vec::new()))
                }
                (_, m) => m,
            };
            if mismatch.is_some()
                && refused.is_none()
                && (super::expected::DONTUNMAP_SELF_MERGE.applies)(rel)
                && seq.calls[i].func == "sys_mremap_dontunmap"
                && super::expected::one_pair_joined(&model, &kernel)
            {
                // a difference between kernel versions: the layouts differ from here on
                *rep.expected
                    .entry(super::expected::DONTUNMAP_SELF_MERGE.name)
                    .or_default() += 1;
                return Ok(None);
            }
            if let Some((what, bad)) = mismatch {
                let mut m = Mismatch {
                    known: None,
                    calls: seq.calls.clone(),
                    at: i,
                    mm,
                    what,
                    model,
                    kernel,
                    bad,
                };
                if refused.is_none() {
                    m.known = super::known::explain(&m);
                }
                return Ok(Some(m));
            }
            for e in v.expected {
                *rep.expected.entry(e).or_default() += 1;
            }
        }
    }
    Ok(None)
}
