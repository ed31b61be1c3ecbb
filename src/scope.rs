//! Scopes: the bounds of an exhaustive search. A scope names the initial world (mms and files),
//! the address space, how many VMAs and mms a state may have, how deep call sequences go, the
//! mode (`callers`: the kernel's real call sites; `contract`: any arguments the internal
//! functions' preconditions allow) and the time/state bounds after which a search is reported
//! incomplete. Scopes are TOML; a few are built in by name.
//!
//! It names nothing of the searches, the traces or the commands.

use crate::check::{Invariant, InvariantSet};
use crate::world::scenario::{FileSpec, MmSpec, Scenario};
use serde::{Deserialize, Deserializer, Serialize};

/// Why a scope cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// Neither a built-in name nor a file that can be read.
    #[error(
        "scope {spec:?}: not a built-in scope (tiny, default, contract, walkers, large) and not \
         readable: {reason}"
    )]
    Unreadable { spec: String, reason: String },
    /// The text is not a scope's TOML: `line:col: message`.
    #[error("{0}")]
    Syntax(String),
    /// A value out of range or an unknown name, placed at the key it is about.
    #[error("{line}:{col}: {message}")]
    Invalid {
        line: usize,
        col: usize,
        message: String,
    },
    /// An error in the scope file `file`.
    #[error("{file}:{error}")]
    InFile {
        file: String,
        error: Box<ScopeError>,
    },
}

/// Which engine runs a call: the compiled one (`exec::machine`, the default) or the reference
/// interpreter (`exec::thread`). Traces are always recorded with the reference interpreter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// The model decoded once into plain operations, each call run to its end in one loop.
    #[default]
    Compiled,
    /// The step-by-step interpreter that records traces.
    Reference,
}

/// Which calls the explorer makes (callers only, or the contract entry points too).
pub use crate::entry::Mode;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scope {
    pub name: String,
    pub mode: Mode,
    /// Longest call sequence explored.
    pub max_depth: u32,
    /// Address space `[0, pages)` in pages.
    pub pages: u64,
    /// Regular files.
    pub files: u32,
    /// Also a /dev/zero file (its private mappings are anonymous VMAs with a vm_file).
    pub dev_zero: bool,
    /// Offer shared file mappings.
    pub shared: bool,
    /// Offer file mappings at a pgoff that is not the address (so pgoff ranges overlap).
    pub offsets: bool,
    /// Longest mapping created by mmap / mremap.
    pub max_len: u64,
    /// States with more VMAs in one mm are checked but not expanded.
    pub max_vmas: usize,
    /// fork is offered while there are fewer mms than this.
    pub max_mms: usize,
    /// Entry points to use (when empty: the core entry points the model defines, and the
    /// extended ones too when `extended` is set).
    pub entries: Vec<String>,
    /// With no `entries`: also offer the extended entry points (`crate::entry::Tier`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub extended: bool,
    /// Invariants to check (all when empty); an unknown name is refused when the scope is read.
    #[serde(deserialize_with = "invariant_names")]
    pub invariants: Vec<Invariant>,
    /// Bounds that make a search incomplete when hit.
    pub max_states: usize,
    pub max_seconds: f64,
    pub max_memory_mb: usize,
    /// Walker threads run next to each writer call by `check` (0: call sequences only); also
    /// the default of `rmapcheck interleave`.
    pub walkers: u32,
    /// With `walkers > 0`: every call made from a state of depth below this also runs against
    /// every set of `walkers` walkers, in every interleaving.
    pub walker_depth: u32,
    /// Walker kinds offered (`file`, `anon`, `flush`, `madv`, and `fault`, `uprobe` only when
    /// named); the first four when empty.
    pub walker_kinds: Vec<String>,
    /// After a counterexample without walkers, the consequence search (`explore::consequence`)
    /// looks for worse consequences of the same bug in call sequences up to this long (at
    /// least the scope's own depth; a scope with walkers searches its own depth, the walker
    /// window).
    pub consequence_depth: u32,
    /// Time bound of each class's consequence search, in seconds (0: no consequence search).
    pub consequence_seconds: f64,
    /// Symmetry reduction: worlds that differ only in the numbering of their mms are one state
    /// (`src/world/symmetry.rs`). Off by default; the verdicts are the same either way.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub symmetry: bool,
    /// Symmetry reduction over files: worlds that differ only in which of the interchangeable
    /// regular files (every regular file of the initial world) a VMA, a page-cache folio or a
    /// tree belongs to are one state (`src/world/symmetry.rs`). Off by default; the verdicts are
    /// the same either way. Changes nothing with fewer than two files.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub file_symmetry: bool,
    /// Commuting calls: a state reached by a call on one mm does not take again the calls on
    /// lower-numbered mms that share nothing with it and were already taken before it (sleep
    /// sets, `src/explore/commute.rs`). The same states, verdicts and counterexamples, fewer
    /// calls run. Off by default.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub commute: bool,
    /// Which engine runs the calls of the search (`compiled` unless asked otherwise; the
    /// same worlds and verdicts either way). Not a field of scope files.
    #[serde(skip)]
    pub engine: Engine,
    /// The scope file this scope was read from (none: built in or made in code).
    #[serde(skip)]
    pub source: Option<String>,
    /// Whether the scope file names a reduction (`symmetry`, `file_symmetry` or `commute`):
    /// `check` then leaves the reductions as the file sets them instead of turning the
    /// symmetry reductions on by default.
    #[serde(skip)]
    pub reductions_set: bool,
}

impl Default for Scope {
    fn default() -> Self {
        Scope {
            name: "default".into(),
            mode: Mode::Callers,
            max_depth: 4,
            pages: 4,
            files: 1,
            dev_zero: true,
            shared: true,
            offsets: false,
            max_len: 4,
            max_vmas: 3,
            max_mms: 2,
            entries: Vec::new(),
            extended: false,
            invariants: Vec::new(),
            max_states: 50_000_000,
            max_seconds: 600.0,
            max_memory_mb: 8192,
            walkers: 0,
            walker_depth: 2,
            walker_kinds: Vec::new(),
            consequence_depth: 5,
            consequence_seconds: 30.0,
            symmetry: false,
            file_symmetry: false,
            commute: false,
            engine: Engine::default(),
            source: None,
            reductions_set: false,
        }
    }
}

impl Scope {
    /// The budget of a search in this scope: its `max_seconds` and `max_memory_mb`.
    pub fn budget(&self) -> std::sync::Arc<crate::checker::budget::Budget> {
        std::sync::Arc::new(crate::checker::budget::Budget::new(
            self.max_seconds,
            self.max_memory_mb,
        ))
    }

    /// A built-in scope by name: `tiny`, `default`, `contract`, `walkers`, `extended`, `large`.
    pub fn builtin(name: &str) -> Option<Scope> {
        let d = Scope::default();
        Some(match name {
            "default" | "callers" => d,
            "tiny" => Scope {
                name: "tiny".into(),
                max_depth: 2,
                pages: 3,
                dev_zero: false,
                shared: false,
                max_mms: 1,
                ..d
            },
            "contract" => Scope {
                name: "contract".into(),
                mode: Mode::Contract,
                offsets: true,
                ..d
            },
            "walkers" => Scope {
                name: "walkers".into(),
                max_depth: 4,
                walkers: 1,
                walker_depth: 2,
                ..d
            },
            "extended" => Scope {
                name: "extended".into(),
                extended: true,
                ..d
            },
            "large" => Scope {
                name: "large".into(),
                max_depth: 4,
                pages: 5,
                offsets: true,
                max_vmas: 4,
                ..d
            },
            _ => return None,
        })
    }

    /// A scope from a name (built in) or a TOML file path; errors read `file:line:col: ...`.
    pub fn load(spec: &str) -> Result<Scope, ScopeError> {
        if let Some(s) = Scope::builtin(spec) {
            return Ok(s);
        }
        let text = std::fs::read_to_string(spec).map_err(|e| ScopeError::Unreadable {
            spec: spec.to_string(),
            reason: e.to_string(),
        })?;
        let mut s = Scope::parse(&text).map_err(|e| ScopeError::InFile {
            file: spec.to_string(),
            error: Box::new(e),
        })?;
        s.source = Some(spec.to_string());
        Ok(s)
    }

    /// Parse and validate a scope; errors read `line:col: message`, at the key a validation
    /// error is about.
    pub fn parse(text: &str) -> Result<Scope, ScopeError> {
        let mut s: Scope = crate::toml_diag::parse(text).map_err(|e| match e.split_once(": ") {
            // an unknown invariant is placed at the `invariants` key, like a bad value
            Some((_, msg)) if msg.starts_with("unknown invariant ") => {
                let (line, col) = locate_key(text, "invariants");
                ScopeError::Invalid {
                    line,
                    col,
                    message: format!("invariants: {msg}"),
                }
            }
            _ => ScopeError::Syntax(e),
        })?;
        s.reductions_set = text.parse::<toml::Table>().is_ok_and(|t| {
            ["symmetry", "file_symmetry", "commute"]
                .iter()
                .any(|k| t.contains_key(*k))
        });
        s.validate().map_err(|message| {
            let key = message.split([' ', ':']).next().unwrap_or("");
            let (line, col) = locate_key(text, key);
            ScopeError::Invalid { line, col, message }
        })?;
        Ok(s)
    }

    /// Reject scopes that make no sense or could not finish.
    pub fn validate(&self) -> Result<(), String> {
        if self.pages == 0 || self.pages > 64 {
            return Err(format!("pages = {}: must be 1..=64", self.pages));
        }
        if self.max_len == 0 {
            return Err("max_len must be at least 1".into());
        }
        if self.max_mms == 0 {
            return Err("max_mms must be at least 1".into());
        }
        if self.max_vmas == 0 || self.max_vmas > 16 {
            return Err(format!(
                "max_vmas = {}: must be 1..=16 (no VMA means no call)",
                self.max_vmas
            ));
        }
        if self.max_states == 0 {
            return Err("max_states must be at least 1".into());
        }
        if self.max_memory_mb == 0 || self.max_memory_mb > 1 << 20 {
            return Err(format!(
                "max_memory_mb = {}: must be 1..=1048576",
                self.max_memory_mb
            ));
        }
        if !(self.max_seconds > 0.0 && self.max_seconds.is_finite()) {
            return Err(format!(
                "max_seconds = {}: must be a positive number of seconds",
                self.max_seconds
            ));
        }
        if self.files > 8 {
            return Err(format!("files = {}: at most 8", self.files));
        }
        if self.max_depth > 64 {
            return Err(format!("max_depth = {}: at most 64", self.max_depth));
        }
        if self.walkers > 8 {
            return Err(format!("walkers = {}: at most 8", self.walkers));
        }
        check_kinds(&self.walker_kinds)?;
        if self.consequence_depth > 64 {
            return Err(format!(
                "consequence_depth = {}: at most 64",
                self.consequence_depth
            ));
        }
        if !(self.consequence_seconds >= 0.0 && self.consequence_seconds.is_finite()) {
            return Err(format!(
                "consequence_seconds = {}: must be 0 (no consequence search) or a positive \
                 number of seconds",
                self.consequence_seconds
            ));
        }
        for e in &self.entries {
            if crate::entry::EntryPoint::from_name(e).is_none() {
                let known: Vec<&str> = crate::entry::EntryPoint::all().map(|p| p.name()).collect();
                return Err(format!(
                    "entries: unknown entry point {e:?} (known: {})",
                    known.join(", ")
                ));
            }
        }
        if self.symmetry && self.walkers > 0 {
            return Err(
                "symmetry: not with walkers (a counterexample against walkers could not \
                 be mapped back onto the unreduced worlds)"
                    .into(),
            );
        }
        if self.file_symmetry && self.walkers > 0 {
            return Err(
                "file_symmetry: not with walkers (a counterexample against walkers could \
                 not be mapped back onto the unreduced worlds)"
                    .into(),
            );
        }
        if self.commute && self.walkers > 0 {
            return Err(
                "commute: not with walkers (a call left out is not run against them)".into(),
            );
        }
        if self.commute && (self.symmetry || self.file_symmetry) {
            return Err(
                "commute: not with symmetry or file_symmetry (a sleep set names mms \
                 and files by number, which the symmetry reductions renumber)"
                    .into(),
            );
        }
        Ok(())
    }

    /// The reductions `check` turns on by default: the symmetry reductions over mms and
    /// files, where they apply (no walkers, no sleep sets). They change the states counted,
    /// never a verdict or a counterexample's length.
    pub fn reduce_by_default(&mut self) {
        if self.walkers == 0 && !self.commute {
            self.symmetry = true;
            self.file_symmetry = true;
        }
    }

    /// The initial world: one empty mm and the scope's files.
    pub fn initial_scenario(&self) -> Scenario {
        let mut file: Vec<FileSpec> = (0..self.files)
            .map(|i| FileSpec {
                name: format!("f{i}"),
                dev_zero: false,
            })
            .collect();
        if self.dev_zero {
            file.push(FileSpec {
                name: "zero".into(),
                dev_zero: true,
            });
        }
        Scenario {
            file,
            anon_vma: Vec::new(),
            mm: vec![MmSpec::default()],
            calls: Vec::new(),
        }
    }

    /// The invariants this scope checks.
    pub fn invariant_set(&self) -> InvariantSet {
        if self.invariants.is_empty() {
            InvariantSet::all()
        } else {
            self.invariants.iter().copied().collect()
        }
    }

    /// One line for reports and traces, naming every field that changes the state space and
    /// where the scope came from: two runs with the same line explore the same states.
    pub fn summary(&self) -> String {
        let from = match &self.source {
            Some(p) => format!(" ({p})"),
            None if Scope::builtin(&self.name).is_some_and(|b| b.same_space(self)) => {
                " (built in)".to_string()
            }
            None => String::new(),
        };
        let walkers = if self.walkers > 0 {
            format!(
                "walkers {} ({}) against calls from depth < {}",
                self.walkers,
                list_or(&self.walker_kinds, "all kinds"),
                self.walker_depth
            )
        } else {
            "walkers 0".to_string()
        };
        let on = |b: bool| if b { "on" } else { "off" };
        format!(
            "scope {}{from}: mode {}, depth {}, pages {}, files {}{}, max_len {}, max_vmas {}, \
             max_mms {}, shared {}, offsets {}, {walkers}, entries {}, invariants {}{}{}{}",
            self.name,
            self.mode,
            self.max_depth,
            self.pages,
            self.files,
            if self.dev_zero { " + /dev/zero" } else { "" },
            self.max_len,
            self.max_vmas,
            self.max_mms,
            on(self.shared),
            on(self.offsets),
            match (self.entries.is_empty(), self.extended, self.mode) {
                (true, true, Mode::Contract) => "all".to_string(),
                (true, true, Mode::Callers) => "core and extended".to_string(),
                (true, false, _) => "core".to_string(),
                (false, _, _) => list_or(&self.entries, "all"),
            },
            list_or(&self.invariants, "all"),
            // named only when on, so that the default line stays as it was
            if self.symmetry { ", symmetry on" } else { "" },
            // with one regular file there is nothing to exchange
            if self.file_symmetry && self.files >= 2 {
                ", file symmetry on"
            } else {
                ""
            },
            if self.commute { ", commute on" } else { "" },
        ) + &match self.left_out().as_slice() {
            [] => "; left out: nothing".to_string(),
            l => format!("; left out: {}", l.join("; ")),
        }
    }

    /// The paths this scope does not offer that `rmapcheck check` with no flags covers: entry
    /// points, the contract mode, walker kinds, calls no walker runs against, kinds of mapping,
    /// invariants. The bounds (depth, pages, VMAs, mms, time) are not listed: the line names
    /// them.
    pub fn left_out(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.mode == Mode::Callers {
            out.push("contract entry points (mode callers)".to_string());
        }
        if self.entries.is_empty() && !self.extended {
            let ext: Vec<&str> = crate::entry::EntryPoint::all()
                .filter(|p| p.entry().tier == crate::entry::Tier::Extended)
                .filter(|p| self.mode == Mode::Contract || p.entry().mode == Mode::Callers)
                .map(|p| p.name())
                .collect();
            if !ext.is_empty() {
                out.push(format!("extended entry points {}", ext.join(", ")));
            }
        } else if !self.entries.is_empty() {
            out.push("every entry point not in entries".to_string());
        }
        if self.walkers == 0 {
            out.push("concurrent walkers (walkers 0)".to_string());
        } else {
            let offered: Vec<&str> = if self.walker_kinds.is_empty() {
                WALKER_KINDS.to_vec()
            } else {
                self.walker_kinds.iter().map(String::as_str).collect()
            };
            let missing: Vec<&str> = WALKER_KINDS
                .iter()
                .chain(&EXTENDED_WALKER_KINDS)
                .copied()
                .filter(|k| !offered.contains(k))
                .collect();
            if !missing.is_empty() {
                out.push(format!("walker kinds {}", missing.join(", ")));
            }
            if self.walker_depth < self.max_depth {
                out.push(format!(
                    "walkers against calls from depth {}..{}",
                    self.walker_depth,
                    self.max_depth - 1
                ));
            }
        }
        if !self.shared {
            out.push("shared mappings (shared off)".to_string());
        }
        if !self.offsets {
            out.push("non-linear file mappings (offsets off)".to_string());
        }
        if !self.dev_zero {
            out.push("/dev/zero".to_string());
        }
        if !self.invariants.is_empty() {
            let off: Vec<&str> = crate::invariant::Invariant::ALL
                .iter()
                .filter(|i| !self.invariants.contains(i))
                .map(|i| i.name())
                .collect();
            out.push(format!("invariants {}", off.join(", ")));
        }
        out
    }

    /// Whether two scopes explore the same state space (bounds and names aside).
    pub(crate) fn same_space(&self, o: &Scope) -> bool {
        let strip = |s: &Scope| Scope {
            name: String::new(),
            source: None,
            max_states: 0,
            max_seconds: 0.0,
            max_memory_mb: 0,
            consequence_depth: 0,
            consequence_seconds: 0.0,
            ..s.clone()
        };
        strip(self) == strip(o)
    }
}

fn list_or(v: &[impl std::fmt::Display], none: &str) -> String {
    if v.is_empty() {
        none.to_string()
    } else {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The `invariants` of a scope: names, each refused unless it is an invariant's (with the
/// message that lists the known ones), so that a scope never holds a name it cannot check.
fn invariant_names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Invariant>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|n| n.parse().map_err(serde::de::Error::custom))
        .collect()
}

/// Line and column (1-based) of `key = ...` in a TOML text; 1:1 when it is not there.
fn locate_key(text: &str, key: &str) -> (usize, usize) {
    if key.is_empty() {
        return (1, 1);
    }
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix(key) {
            if rest.trim_start().starts_with('=') {
                return (i + 1, l.len() - t.len() + 1);
            }
        }
    }
    (1, 1)
}

/// Every walker kind offered when a scope or `interleave` names none, in the order calls are
/// listed.
pub(crate) const WALKER_KINDS: [&str; 4] = ["file", "anon", "flush", "madv"];

/// Walker kinds offered only when named (issue 14's extended threads, like the extended entry
/// points): `fault`, a write fault under the per-VMA lock; `uprobe`, the file-tree walk of uprobe
/// registration.
pub(crate) const EXTENDED_WALKER_KINDS: [&str; 2] = ["fault", "uprobe"];

/// Reject unknown walker kind names.
pub fn check_kinds(kinds: &[String]) -> Result<(), String> {
    for k in kinds {
        let k = k.as_str();
        if !WALKER_KINDS.contains(&k) && !EXTENDED_WALKER_KINDS.contains(&k) {
            return Err(format!(
                "unknown walker kind {k:?} (expected file, anon, flush or madv, or one named \
                 only: fault, uprobe)"
            ));
        }
    }
    Ok(())
}
