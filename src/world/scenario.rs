//! Initial worlds and call lists written by hand: a small TOML format naming files, anon_vmas,
//! mms and their VMAs, plus the entry-point calls to run. Used by `rmapcheck run`, by tests with
//! hand-known layouts, and to replay traces.
//!
//! ```toml
//! [[file]]
//! name = "libc.so"
//!
//! [[anon_vma]]
//! name = "A"
//!
//! [[mm]]
//! [[mm.vma]]
//! start = 0
//! end = 4
//! pgoff = 0
//! file = "libc.so"
//! anon_pgoff = 0       # optional: default the start page (file) or pgoff (anonymous)
//! anon_vmas = ["A"]    # AVCs, oldest first; vma->anon_vma is the last one
//! account = true       # optional VM_ACCOUNT: default what mmap and mprotect leave
//!
//! calls = ["__split_vma(vma#0, 2, 0)"]
//! ```

use super::World;
use crate::exec::host::{ObjKind, Value};
use crate::tree::interval;
use crate::tree::TreeObs;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Why a scenario, or a call written as text, cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// The text is not a scenario's TOML: `line:col: message`.
    #[error("{0}")]
    Syntax(String),
    /// A file or anon_vma name declared twice.
    #[error("{kind} {name:?} declared twice")]
    Duplicate { kind: &'static str, name: String },
    /// An anon_vma whose parent is not declared before it.
    #[error("anon_vma {name:?}: unknown parent {parent:?}")]
    UnknownParent { name: String, parent: String },
    /// A VMA with `start >= end`.
    #[error("vma [{start}, {end}): empty range")]
    EmptyRange { start: u64, end: u64 },
    /// A VMA naming a file or anon_vma that is not declared.
    #[error("vma [{start}, {end}): unknown {kind} {name:?}")]
    UnknownName {
        start: u64,
        end: u64,
        kind: &'static str,
        name: String,
    },
    /// A shared mapping of /dev/zero (shmem), which the model leaves out.
    #[error("shared /dev/zero mappings are not modelled")]
    SharedDevZero,
    /// A VMA overlapping an earlier one of its mm.
    #[error("vma [{start}, {end}) overlaps another")]
    Overlap { start: u64, end: u64 },
    /// Linking a VMA into an rmap tree failed.
    #[error("{0}")]
    Tree(#[from] crate::tree::TreeError),
    /// A call's text is not `name(arg, ...)`: the call and what is wrong with it.
    #[error("call {call:?}: {problem}")]
    Call { call: String, problem: CallProblem },
    /// An object kind other than mm, vma, file, mapping, anon_vma or avc.
    #[error("unknown object kind {0:?}")]
    UnknownKind(String),
    /// `kind#id` with an id that is not a number.
    #[error("bad object id in {0:?}")]
    BadId(String),
    /// An argument that is no value.
    #[error("bad argument {0:?}")]
    BadArgument(String),
}

/// What is wrong with a call's text (see [`ScenarioError::Call`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallProblem {
    #[error("expected name(args)")]
    NoArguments,
    #[error("missing ')'")]
    Unclosed,
    #[error("bad function name")]
    BadName,
    /// One argument cannot be parsed.
    #[error("{0}")]
    Value(Box<ScenarioError>),
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub file: Vec<FileSpec>,
    #[serde(default)]
    pub anon_vma: Vec<AnonVmaSpec>,
    #[serde(default)]
    pub mm: Vec<MmSpec>,
    /// Entry-point calls, as text: `name(arg, ...)` with integers, true/false, NULL, `kind#id`.
    #[serde(default)]
    pub calls: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    pub name: String,
    #[serde(default)]
    pub dev_zero: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AnonVmaSpec {
    pub name: String,
    /// Parent in the fork hierarchy; the root is the parent's root.
    #[serde(default)]
    pub parent: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct MmSpec {
    #[serde(default)]
    pub vma: Vec<VmaSpec>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct VmaSpec {
    pub start: u64,
    pub end: u64,
    #[serde(default)]
    pub pgoff: u64,
    /// The anonymous page offset (the anon tree's key). Default: what mmap sets, the start
    /// page for a file VMA and `pgoff` for an anonymous one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anon_pgoff: Option<u64>,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub shared: bool,
    /// VM_WRITE; mappings are writable unless the scenario says otherwise.
    #[serde(default = "yes")]
    pub writable: bool,
    /// VM_ACCOUNT. Default: what mmap and mprotect leave on such a VMA: set on a private
    /// mapping (mmap charges every private writable one), except on an anonymous read-only one
    /// without an anon_vma (mprotect gave its charge back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<bool>,
    #[serde(default)]
    pub anon_vmas: Vec<String>,
}

fn yes() -> bool {
    true
}

impl Scenario {
    /// Parse a scenario; errors read `line:col: message`.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        crate::toml_diag::parse(text).map_err(ScenarioError::Syntax)
    }

    /// Build the initial world: VMAs stored in their mm and linked into the file tree of their
    /// mapping (unless anonymous) and, through one AVC per listed anon_vma, into anon trees.
    pub fn build(&self) -> Result<World, ScenarioError> {
        let mut w = World::new();
        let mut files = HashMap::new();
        for f in &self.file {
            if files.contains_key(&f.name) {
                return Err(ScenarioError::Duplicate {
                    kind: "file",
                    name: f.name.clone(),
                });
            }
            files.insert(f.name.clone(), w.add_file(&f.name, f.dev_zero));
        }
        let mut avs: HashMap<String, u32> = HashMap::new();
        for a in &self.anon_vma {
            if avs.contains_key(&a.name) {
                return Err(ScenarioError::Duplicate {
                    kind: "anon_vma",
                    name: a.name.clone(),
                });
            }
            let id = w.alloc_anon_vma();
            if let Some(p) = &a.parent {
                let &pid = avs.get(p).ok_or_else(|| ScenarioError::UnknownParent {
                    name: a.name.clone(),
                    parent: p.clone(),
                })?;
                let root = w.anon_vmas[pid as usize].root;
                w.anon_vmas[id as usize].parent = pid;
                w.anon_vmas[id as usize].root = root;
                w.anon_vmas[pid as usize].num_children += 1;
                w.anon_vmas[root as usize].refcount += 1;
            }
            avs.insert(a.name.clone(), id);
        }
        for m in &self.mm {
            let mm = w.add_mm();
            for v in &m.vma {
                if v.start >= v.end {
                    return Err(ScenarioError::EmptyRange {
                        start: v.start,
                        end: v.end,
                    });
                }
                let id = w.alloc_vma(Some(mm));
                {
                    let vma = &mut w.vmas[id as usize];
                    vma.vm_start = v.start;
                    vma.vm_end = v.end;
                    vma.vm_pgoff = v.pgoff;
                    vma.vm_anon_pgoff =
                        v.anon_pgoff
                            .unwrap_or(if v.file.is_some() { v.start } else { v.pgoff });
                    if v.shared {
                        vma.vm_flags |= super::builtins::VM_SHARED;
                    }
                    if v.writable {
                        vma.vm_flags |= super::builtins::VM_WRITE;
                    }
                }
                if let Some(f) = &v.file {
                    let &fid = files.get(f).ok_or_else(|| ScenarioError::UnknownName {
                        start: v.start,
                        end: v.end,
                        kind: "file",
                        name: f.clone(),
                    })?;
                    let devz = w.files[fid as usize].dev_zero;
                    if devz && v.shared {
                        return Err(ScenarioError::SharedDevZero);
                    }
                    let vma = &mut w.vmas[id as usize];
                    vma.vm_file = Some(fid);
                    vma.has_vm_ops = !devz;
                    if !vma.is_anonymous() || self.links_anon_file_vmas() {
                        let map = w.files[fid as usize].f_mapping;
                        let keys = super::FileKeys { vmas: &w.vmas };
                        interval::insert(
                            &mut w.mappings[map as usize].i_mmap,
                            &keys,
                            id,
                            &mut TreeObs::default(),
                        )?;
                    }
                }
                let x = &mut w.vmas[id as usize];
                let gave_back = x.is_anonymous() && !v.writable && v.anon_vmas.is_empty();
                if v.account.unwrap_or(!v.shared && !gave_back) {
                    x.vm_flags |= super::builtins::VM_ACCOUNT;
                }
                for name in &v.anon_vmas {
                    let &av = avs.get(name).ok_or_else(|| ScenarioError::UnknownName {
                        start: v.start,
                        end: v.end,
                        kind: "anon_vma",
                        name: name.clone(),
                    })?;
                    let c = w.alloc_avc();
                    w.avcs[c as usize].vma = Some(id);
                    w.avcs[c as usize].anon_vma = Some(av);
                    w.vmas[id as usize].anon_vma_chain.insert(0, c);
                    w.vmas[id as usize].anon_vma = Some(av);
                    let keys = super::AnonKeys {
                        vmas: &w.vmas,
                        avcs: &w.avcs,
                    };
                    let (s, l) = {
                        use crate::tree::IntervalKeys;
                        (keys.start(c), keys.last(c))
                    };
                    interval::insert(
                        &mut w.anon_vmas[av as usize].rb_root,
                        &keys,
                        c,
                        &mut TreeObs::default(),
                    )?;
                    w.avcs[c as usize].cached_vma_start = s;
                    w.avcs[c as usize].cached_vma_last = l;
                }
                if let Some(&own) = v.anon_vmas.last().and_then(|n| avs.get(n)) {
                    w.anon_vmas[own as usize].num_active_vmas += 1;
                }
                let overlap = w.mms[mm as usize]
                    .vmas
                    .iter()
                    .any(|(&s, &(e, _))| s < v.end && e > v.start);
                if overlap {
                    return Err(ScenarioError::Overlap {
                        start: v.start,
                        end: v.end,
                    });
                }
                w.mm_store(mm, id);
                w.mms[mm as usize].map_count += 1;
            }
        }
        Ok(w)
    }

    /// Initial worlds follow the baseline kernel: a private /dev/zero VMA is in the file tree.
    fn links_anon_file_vmas(&self) -> bool {
        true
    }

    /// The calls, parsed.
    pub(crate) fn parsed_calls(&self) -> Result<Vec<Call>, ScenarioError> {
        self.calls.iter().map(|c| Call::parse(c)).collect()
    }
}

/// One entry-point call: a model function name and its arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Call {
    pub func: String,
    pub args: Vec<Value>,
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}(", self.func)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{a}")?;
        }
        write!(f, ")")
    }
}

impl Call {
    /// Parse `name(arg, ...)`; arguments are integers, `true`, `false`, `NULL` or `kind#id`
    /// with kind one of mm, vma, file, mapping, anon_vma, avc.
    pub fn parse(text: &str) -> Result<Call, ScenarioError> {
        let t = text.trim();
        let bad = |problem| ScenarioError::Call {
            call: t.to_string(),
            problem,
        };
        let open = t.find('(').ok_or_else(|| bad(CallProblem::NoArguments))?;
        if !t.ends_with(')') {
            return Err(bad(CallProblem::Unclosed));
        }
        let func = t[..open].trim();
        if func.is_empty() || !func.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad(CallProblem::BadName));
        }
        let inner = t[open + 1..t.len() - 1].trim();
        let mut args = Vec::new();
        if !inner.is_empty() {
            for a in inner.split(',') {
                args.push(parse_value(a.trim()).map_err(|e| bad(CallProblem::Value(Box::new(e))))?);
            }
        }
        Ok(Call {
            func: func.to_string(),
            args,
        })
    }
}

/// Parse one value as printed by `Value`'s Display.
pub(crate) fn parse_value(a: &str) -> Result<Value, ScenarioError> {
    Ok(match a {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "NULL" => Value::Null,
        _ => {
            if let Some((k, id)) = a.split_once('#') {
                let kind = match k {
                    "mm" => ObjKind::Mm,
                    "vma" => ObjKind::Vma,
                    "file" => ObjKind::File,
                    "mapping" => ObjKind::Mapping,
                    "anon_vma" => ObjKind::AnonVma,
                    "avc" => ObjKind::Avc,
                    _ => return Err(ScenarioError::UnknownKind(k.to_string())),
                };
                let id = id
                    .parse()
                    .map_err(|_| ScenarioError::BadId(a.to_string()))?;
                Value::Obj(kind, id)
            } else {
                Value::Int(
                    a.parse()
                        .map_err(|_| ScenarioError::BadArgument(a.to_string()))?,
                )
            }
        }
    })
}
