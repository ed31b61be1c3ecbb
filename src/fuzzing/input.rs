//! Decoding fuzzer bytes with `arbitrary`: a small initial world (one or two files, one of them
//! maybe /dev/zero, one mm with up to four VMAs in the first 32 pages), a model selector byte and
//! a sequence of abstract operations. Abstract operations carry raw choices (which VMA by index,
//! an offset, a length) rather than addresses; [`super::concretise`] turns each into a valid
//! call against the world as it stands when the operation runs.

use crate::world::scenario::{AnonVmaSpec, FileSpec, MmSpec, Scenario, VmaSpec};
use arbitrary::{Arbitrary, Unstructured};

/// Why fuzzer bytes cannot be decoded: the part being read (world, model or mode) and what
/// `arbitrary` said.
#[derive(Debug, thiserror::Error)]
#[error("fuzz input: {part}: {error}")]
pub struct DecodeError {
    pub part: &'static str,
    pub error: arbitrary::Error,
}

fn part(part: &'static str) -> impl Fn(arbitrary::Error) -> DecodeError {
    move |error| DecodeError { part, error }
}

/// Abstract operations a case is made of; the numbers are raw choices, reduced modulo whatever
/// the current world allows.
#[derive(Arbitrary, Clone, Debug, PartialEq, Eq)]
pub enum AbstractOp {
    Mmap {
        mm: u8,
        file: u8,
        start: u8,
        len: u8,
        pgoff: u8,
        shared: bool,
    },
    Munmap {
        mm: u8,
        vma: u8,
        start: u8,
        len: u8,
    },
    Mprotect {
        mm: u8,
        vma: u8,
        start: u8,
        len: u8,
        writable: bool,
    },
    MremapExpand {
        mm: u8,
        vma: u8,
        grow: u8,
    },
    MremapShrink {
        mm: u8,
        vma: u8,
        keep: u8,
    },
    ShiftDown {
        mm: u8,
        vma: u8,
        shift: u8,
    },
    Fork {
        mm: u8,
    },
    Exit {
        mm: u8,
    },
    Fault {
        mm: u8,
        vma: u8,
        off: u8,
    },
    ContractSplit {
        mm: u8,
        vma: u8,
        at: u8,
        new_below: bool,
    },
    ContractShrink {
        mm: u8,
        vma: u8,
        keep: u8,
    },
    ContractAdjustNext {
        mm: u8,
        vma: u8,
        at: u8,
        pgoff: u8,
    },
    ContractAdjustMiddle {
        mm: u8,
        vma: u8,
        at: u8,
        pgoff: u8,
    },
    /// sys_mremap_move (issue 14): a sub-range of a VMA moved to a free range, maybe grown.
    MremapMove {
        mm: u8,
        vma: u8,
        start: u8,
        len: u8,
        grow: u8,
        dest: u8,
    },
    /// sys_mmap_growsdown (issue 14): an anonymous MAP_GROWSDOWN mapping.
    MmapGrowsdown {
        mm: u8,
        start: u8,
        len: u8,
    },
    /// do_stack_fault (issue 14): a fault below a VM_GROWSDOWN VMA.
    StackFault {
        mm: u8,
        vma: u8,
        below: u8,
    },
    /// sys_mmap_fixed (issue 14): mmap(MAP_FIXED) over a range around a VMA.
    MmapFixed {
        mm: u8,
        vma: u8,
        file: u8,
        start: u8,
        len: u8,
        pgoff: u8,
        shared: bool,
    },
    /// do_anonymous_fault_vma_lock (issue 14): a write fault under the per-VMA lock.
    FaultVmaLock {
        mm: u8,
        vma: u8,
        off: u8,
    },
    /// sys_mremap_move_shrink (issue 14): a sub-range of a VMA moved to a free range, shorter.
    MremapMoveShrink {
        mm: u8,
        vma: u8,
        start: u8,
        len: u8,
        cut: u8,
        dest: u8,
    },
    /// sys_mremap_dontunmap (issue 14): a sub-range of a VMA moved, the source left mapped.
    MremapDontunmap {
        mm: u8,
        vma: u8,
        start: u8,
        len: u8,
        dest: u8,
    },
    /// setup_stack_growsup (issue 14): a VM_GROWSUP stack (CONFIG_STACK_GROWSUP).
    SetupStackGrowsup {
        mm: u8,
        start: u8,
        len: u8,
    },
    /// do_stack_fault_up (issue 14): a fault above a VM_GROWSUP VMA.
    StackFaultUp {
        mm: u8,
        vma: u8,
        above: u8,
    },
    /// sys_munmap_abort (issue 14): a munmap whose maple-tree clear fails after the gather.
    MunmapAbort {
        mm: u8,
        vma: u8,
        start: u8,
        len: u8,
    },
    /// sys_fork_fail (issue 14): a fork that fails after copying `copied` VMAs.
    ForkFail {
        mm: u8,
        copied: u8,
    },
    /// sys_mmap_fixed_fail (issue 14): mmap(MAP_FIXED) over the range `sys_mmap_fixed` would
    /// take, failing after the clean-up of the VMAs it replaces.
    MmapFixedFail {
        mm: u8,
        vma: u8,
        start: u8,
        len: u8,
    },
}

/// Most abstract operations one case runs; the rest of a longer input is ignored.
pub(crate) const MAX_OPS: usize = 64;
/// Pages the initial VMAs are placed in.
pub(crate) const INITIAL_PAGES: u64 = 32;
/// Most VMAs in the initial mm.
pub(crate) const MAX_INITIAL_VMAS: usize = 4;

/// A decoded fuzz input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The initial world (its `calls` are empty).
    pub scenario: Scenario,
    /// Raw model selector: index into the sorted model list, modulo its length.
    pub model: u8,
    /// Whether contract-mode operations (internal functions with any documented arguments) are
    /// run; when false they are skipped and only the kernel's real call sites are exercised.
    pub contract: bool,
    pub ops: Vec<AbstractOp>,
}

impl Decoded {
    /// The model this input selects among `n` models (n > 0).
    pub(crate) fn model_index(&self, n: usize) -> usize {
        self.model as usize % n.max(1)
    }
}

/// Raw choices for one initial VMA; one byte per field, in order.
#[derive(Arbitrary, Clone, Debug, Default, PartialEq, Eq)]
pub struct VmaSeed {
    /// Free pages before it (modulo 4).
    pub gap: u8,
    /// Pages minus one (modulo 8).
    pub len: u8,
    /// 0: anonymous; otherwise a file: (file - 1) modulo the number of files.
    pub file: u8,
    /// Top bit clear: pgoff = start (linear, so neighbours can merge); set: pgoff % 64.
    pub pgoff: u8,
    /// Shared mapping (only for a regular file).
    pub shared: bool,
    pub writable: bool,
    /// Modulo 3: 0 no anon_vma; 1 its own; 2 the previous VMA's when it has one, else its own.
    pub anon: u8,
}

/// Raw choices for the initial world: files and the first mm's VMAs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldSeed {
    /// A second file besides `f0`.
    pub two_files: bool,
    /// The second file is /dev/zero.
    pub dev_zero: bool,
    /// At most [`MAX_INITIAL_VMAS`] are used; VMAs that would end past [`INITIAL_PAGES`] are
    /// dropped.
    pub vmas: Vec<VmaSeed>,
}

impl WorldSeed {
    fn read(u: &mut Unstructured) -> arbitrary::Result<WorldSeed> {
        let two_files = bool::arbitrary(u)?;
        let dev_zero = bool::arbitrary(u)?;
        let n = u8::arbitrary(u)? as usize % (MAX_INITIAL_VMAS + 1);
        let mut vmas = Vec::with_capacity(n);
        for _ in 0..n {
            vmas.push(VmaSeed::arbitrary(u)?);
        }
        Ok(WorldSeed {
            two_files,
            dev_zero,
            vmas,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.push(self.two_files as u8);
        out.push(self.dev_zero as u8);
        let vmas = &self.vmas[..self.vmas.len().min(MAX_INITIAL_VMAS)];
        out.push(vmas.len() as u8);
        for v in vmas {
            out.extend([
                v.gap,
                v.len,
                v.file,
                v.pgoff,
                v.shared as u8,
                v.writable as u8,
                v.anon,
            ]);
        }
    }

    /// The initial world these choices describe; always builds.
    pub fn scenario(&self) -> Scenario {
        let mut s = Scenario::default();
        s.file.push(FileSpec {
            name: "f0".into(),
            dev_zero: false,
        });
        if self.two_files {
            s.file.push(FileSpec {
                name: "f1".into(),
                dev_zero: self.dev_zero,
            });
        }
        let mut mm = MmSpec::default();
        let mut at = 0u64;
        let mut prev_anon: Option<String> = None;
        for seed in self.vmas.iter().take(MAX_INITIAL_VMAS) {
            let start = at + u64::from(seed.gap % 4);
            let end = start + 1 + u64::from(seed.len % 8);
            if end > INITIAL_PAGES {
                break;
            }
            at = end;
            let fi = seed.file as usize % (s.file.len() + 1);
            let file = (fi > 0).then(|| s.file[fi - 1].clone());
            let pgoff = if file.is_none() || seed.pgoff & 0x80 == 0 {
                start
            } else {
                u64::from(seed.pgoff % 64)
            };
            let shared = file.as_ref().is_some_and(|f| !f.dev_zero) && seed.shared;
            let anon_vmas = match seed.anon % 3 {
                _ if shared => vec![],
                0 => vec![],
                2 if prev_anon.is_some() => prev_anon.iter().cloned().collect(),
                _ => {
                    let name = format!("A{}", s.anon_vma.len());
                    s.anon_vma.push(AnonVmaSpec {
                        name: name.clone(),
                        parent: None,
                    });
                    vec![name]
                }
            };
            prev_anon = anon_vmas.last().cloned();
            mm.vma.push(VmaSpec {
                start,
                end,
                pgoff,
                anon_pgoff: None,
                file: file.map(|f| f.name),
                shared,
                writable: seed.writable,
                account: None,
                anon_vmas,
            });
        }
        s.mm.push(mm);
        s
    }
}

/// The raw form of a case before the world is built: what [`encode`] writes and [`decode`]
/// reads. Seed corpora are made from it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawInput {
    pub world: WorldSeed,
    pub model: u8,
    pub contract: bool,
    pub ops: Vec<AbstractOp>,
}

/// Bytes that [`decode`] reads back as `raw` (ops beyond [`MAX_OPS`] are dropped).
pub fn encode(raw: &RawInput) -> Vec<u8> {
    let mut out = Vec::new();
    raw.world.write(&mut out);
    out.push(raw.model);
    out.push(raw.contract as u8);
    for op in raw.ops.iter().take(MAX_OPS) {
        op.write(&mut out);
    }
    out
}

impl AbstractOp {
    /// Number of variants (the enum tag is chosen among them from a little-endian u32).
    const VARIANTS: u64 = 25;

    fn write(&self, out: &mut Vec<u8>) {
        use AbstractOp::*;
        let b = |x: &bool| *x as u8;
        let (tag, fields): (u64, Vec<u8>) = match self {
            Mmap {
                mm,
                file,
                start,
                len,
                pgoff,
                shared,
            } => (0, vec![*mm, *file, *start, *len, *pgoff, b(shared)]),
            Munmap {
                mm,
                vma,
                start,
                len,
            } => (1, vec![*mm, *vma, *start, *len]),
            Mprotect {
                mm,
                vma,
                start,
                len,
                writable,
            } => (2, vec![*mm, *vma, *start, *len, b(writable)]),
            MremapExpand { mm, vma, grow } => (3, vec![*mm, *vma, *grow]),
            MremapShrink { mm, vma, keep } => (4, vec![*mm, *vma, *keep]),
            ShiftDown { mm, vma, shift } => (5, vec![*mm, *vma, *shift]),
            Fork { mm } => (6, vec![*mm]),
            Exit { mm } => (7, vec![*mm]),
            Fault { mm, vma, off } => (8, vec![*mm, *vma, *off]),
            ContractSplit {
                mm,
                vma,
                at,
                new_below,
            } => (9, vec![*mm, *vma, *at, b(new_below)]),
            ContractShrink { mm, vma, keep } => (10, vec![*mm, *vma, *keep]),
            ContractAdjustNext { mm, vma, at, pgoff } => (11, vec![*mm, *vma, *at, *pgoff]),
            ContractAdjustMiddle { mm, vma, at, pgoff } => (12, vec![*mm, *vma, *at, *pgoff]),
            MremapMove {
                mm,
                vma,
                start,
                len,
                grow,
                dest,
            } => (13, vec![*mm, *vma, *start, *len, *grow, *dest]),
            MmapGrowsdown { mm, start, len } => (14, vec![*mm, *start, *len]),
            StackFault { mm, vma, below } => (15, vec![*mm, *vma, *below]),
            MmapFixed {
                mm,
                vma,
                file,
                start,
                len,
                pgoff,
                shared,
            } => (16, vec![*mm, *vma, *file, *start, *len, *pgoff, b(shared)]),
            FaultVmaLock { mm, vma, off } => (17, vec![*mm, *vma, *off]),
            MremapMoveShrink {
                mm,
                vma,
                start,
                len,
                cut,
                dest,
            } => (18, vec![*mm, *vma, *start, *len, *cut, *dest]),
            MremapDontunmap {
                mm,
                vma,
                start,
                len,
                dest,
            } => (19, vec![*mm, *vma, *start, *len, *dest]),
            SetupStackGrowsup { mm, start, len } => (20, vec![*mm, *start, *len]),
            StackFaultUp { mm, vma, above } => (21, vec![*mm, *vma, *above]),
            MunmapAbort {
                mm,
                vma,
                start,
                len,
            } => (22, vec![*mm, *vma, *start, *len]),
            ForkFail { mm, copied } => (23, vec![*mm, *copied]),
            MmapFixedFail {
                mm,
                vma,
                start,
                len,
            } => (24, vec![*mm, *vma, *start, *len]),
        };
        // the derive picks variant (x * VARIANTS) >> 32 for the u32 x it reads
        let x = (tag << 32).div_ceil(Self::VARIANTS);
        out.extend((x as u32).to_le_bytes());
        out.extend(fields);
    }
}

/// Read the raw choices from fuzzer bytes.
pub fn decode_raw(bytes: &[u8]) -> Result<RawInput, DecodeError> {
    let mut u = Unstructured::new(bytes);
    let world = WorldSeed::read(&mut u).map_err(part("world"))?;
    let model = u8::arbitrary(&mut u).map_err(part("model"))?;
    let contract = bool::arbitrary(&mut u).map_err(part("mode"))?;
    let mut ops = Vec::new();
    while ops.len() < MAX_OPS && !u.is_empty() {
        match AbstractOp::arbitrary(&mut u) {
            Ok(op) => ops.push(op),
            Err(_) => break,
        }
    }
    Ok(RawInput {
        world,
        model,
        contract,
        ops,
    })
}

impl RawInput {
    /// The decoded case: the initial world built from the seed.
    pub fn decoded(&self) -> Decoded {
        Decoded {
            scenario: self.world.scenario(),
            model: self.model,
            contract: self.contract,
            ops: self.ops.iter().take(MAX_OPS).cloned().collect(),
        }
    }
}

/// Decode fuzzer bytes. Any byte string decodes (a short input gives an empty mm and no
/// operations, as `arbitrary` reads missing bytes as zeros); the error case is kept for inputs
/// `arbitrary` itself rejects.
pub fn decode(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    decode_raw(bytes).map(|r| r.decoded())
}
