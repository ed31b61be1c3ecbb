//! proptest strategies for fuzz cases (abstract operations and raw inputs), shared by the
//! fuzzing tests through `#[path]` so that other test crates do not carry them.

use proptest::prelude::*;
use rmapcheck::fuzzing::input::{RawInput, VmaSeed, WorldSeed};
use rmapcheck::fuzzing::AbstractOp;

/// Any abstract operation.
pub fn op_strategy() -> impl Strategy<Value = AbstractOp> {
    let b = any::<u8>();
    prop_oneof![
        (b, b, b, b, b, any::<bool>()).prop_map(|(mm, file, start, len, pgoff, shared)| {
            AbstractOp::Mmap {
                mm,
                file,
                start,
                len,
                pgoff,
                shared,
            }
        }),
        (b, b, b, b).prop_map(|(mm, vma, start, len)| AbstractOp::Munmap {
            mm,
            vma,
            start,
            len
        }),
        (b, b, b, b, any::<bool>()).prop_map(|(mm, vma, start, len, writable)| {
            AbstractOp::Mprotect {
                mm,
                vma,
                start,
                len,
                writable,
            }
        }),
        (b, b, b).prop_map(|(mm, vma, grow)| AbstractOp::MremapExpand { mm, vma, grow }),
        (b, b, b).prop_map(|(mm, vma, keep)| AbstractOp::MremapShrink { mm, vma, keep }),
        (b, b, b).prop_map(|(mm, vma, shift)| AbstractOp::ShiftDown { mm, vma, shift }),
        b.prop_map(|mm| AbstractOp::Fork { mm }),
        b.prop_map(|mm| AbstractOp::Exit { mm }),
        (b, b, b).prop_map(|(mm, vma, off)| AbstractOp::Fault { mm, vma, off }),
        (b, b, b, any::<bool>()).prop_map(|(mm, vma, at, new_below)| {
            AbstractOp::ContractSplit {
                mm,
                vma,
                at,
                new_below,
            }
        }),
        (b, b, b).prop_map(|(mm, vma, keep)| AbstractOp::ContractShrink { mm, vma, keep }),
        (b, b, b, b).prop_map(|(mm, vma, at, pgoff)| AbstractOp::ContractAdjustNext {
            mm,
            vma,
            at,
            pgoff
        }),
        (b, b, b, b).prop_map(|(mm, vma, at, pgoff)| AbstractOp::ContractAdjustMiddle {
            mm,
            vma,
            at,
            pgoff
        }),
        (b, b, b).prop_map(|(mm, start, len)| AbstractOp::MmapGrowsdown { mm, start, len }),
        (b, b, b).prop_map(|(mm, vma, below)| AbstractOp::StackFault { mm, vma, below }),
        (b, b, b).prop_map(|(mm, vma, off)| AbstractOp::FaultVmaLock { mm, vma, off }),
        (b, b, b, b, b, b).prop_map(|(mm, vma, start, len, cut, dest)| {
            AbstractOp::MremapMoveShrink {
                mm,
                vma,
                start,
                len,
                cut,
                dest,
            }
        }),
        (b, b, b, b, b).prop_map(|(mm, vma, start, len, dest)| AbstractOp::MremapDontunmap {
            mm,
            vma,
            start,
            len,
            dest
        }),
        (b, b, b).prop_map(|(mm, start, len)| AbstractOp::SetupStackGrowsup { mm, start, len }),
        (b, b, b).prop_map(|(mm, vma, above)| AbstractOp::StackFaultUp { mm, vma, above }),
        (b, b, b, b, b, b).prop_map(|(mm, vma, start, len, grow, dest)| {
            AbstractOp::MremapMove {
                mm,
                vma,
                start,
                len,
                grow,
                dest,
            }
        }),
        (b, b, b, b, b, b, any::<bool>()).prop_map(|(mm, vma, file, start, len, pgoff, shared)| {
            AbstractOp::MmapFixed {
                mm,
                vma,
                file,
                start,
                len,
                pgoff,
                shared,
            }
        }),
    ]
}

/// Any raw input: up to four initial VMAs and up to 40 operations.
pub fn raw_strategy() -> impl Strategy<Value = RawInput> {
    let seed = (
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<bool>(),
        any::<bool>(),
        any::<u8>(),
    )
        .prop_map(|(gap, len, file, pgoff, shared, writable, anon)| VmaSeed {
            gap,
            len,
            file,
            pgoff,
            shared,
            writable,
            anon,
        });
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(seed, 0..=4),
        any::<u8>(),
        any::<bool>(),
        prop::collection::vec(op_strategy(), 0..40),
    )
        .prop_map(
            |(two_files, dev_zero, vmas, model, contract, ops)| RawInput {
                world: WorldSeed {
                    two_files,
                    dev_zero,
                    vmas,
                },
                model,
                contract,
                ops,
            },
        )
}
