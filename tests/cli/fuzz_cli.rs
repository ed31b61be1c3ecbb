//! `rmapcheck fuzz-decode` and `replay-crash` on inputs made with the encoder, against the real
//! models and against a mutant (a copy of the models where a split no longer links the new VMA
//! into the file tree), so that a failure is found, minimised and located.

use rmapcheck::cmd::fuzz::{fuzz_decode, replay_crash};
use rmapcheck::fuzzing::input::{encode, RawInput, VmaSeed, WorldSeed};
use rmapcheck::fuzzing::AbstractOp;
use rmapcheck::world::scenario::Scenario;
use std::path::Path;

fn tmp(name: &str) -> crate::scratch::Scratch {
    crate::scratch::scratch(&format!("fuzz-cli-{name}"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dst = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}

/// One file VMA [0, 8); an anonymous mmap and a fault that do not matter; then a munmap in the
/// middle of the file VMA (two splits).
fn input() -> Vec<u8> {
    encode(&RawInput {
        world: WorldSeed {
            two_files: false,
            dev_zero: false,
            vmas: vec![VmaSeed {
                len: 7,
                file: 1,
                writable: true,
                ..Default::default()
            }],
        },
        model: 0,
        contract: false,
        ops: vec![
            AbstractOp::Mmap {
                mm: 0,
                file: 0,
                start: 40,
                len: 2,
                pgoff: 0,
                shared: false,
            },
            AbstractOp::Fault {
                mm: 0,
                vma: 1,
                off: 0,
            },
            AbstractOp::Munmap {
                mm: 0,
                vma: 0,
                start: 8,
                len: 1,
            },
        ],
    })
}

fn run(
    f: fn(&Path, Option<&Path>, &mut dyn std::io::Write) -> rmapcheck::cmd::CmdResult,
    crash: &Path,
    models: &Path,
) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let rc = rmapcheck::cmd::exit_status(f(crash, Some(models), &mut out), &mut err);
    (
        rc,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn fuzz_decode_prints_a_scenario_that_runs() {
    let d = tmp("decode");
    let crash = d.join("input");
    std::fs::write(&crash, input()).unwrap();
    let (rc, out, err) = run(fuzz_decode, &crash, Path::new("models"));
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains("# model: models/v7.3-rc4/baseline.rmap"),
        "{out}"
    );
    assert!(out.contains("# every call runs clean"), "{out}");
    let s = Scenario::parse(&out).unwrap();
    assert_eq!(
        s.calls,
        vec![
            "sys_mmap(mm#0, NULL, 40, 43, 0, false)",
            "do_anonymous_fault(mm#0, 40)",
            "sys_munmap(mm#0, 3, 5)"
        ]
    );
    // the printed scenario is what `rmapcheck run` takes
    let sc = d.join("s.toml");
    std::fs::write(&sc, &out).unwrap();
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let rc = rmapcheck::cmd::run::run(Path::new("models/v7.3-rc4/baseline.rmap"), &sc, &mut o);
    let rc = rmapcheck::cmd::exit_status(rc, &mut e);
    assert_eq!(rc, 0, "{}", String::from_utf8_lossy(&e));
    let (rc, out, _) = run(replay_crash, &crash, Path::new("models"));
    assert_eq!(rc, 0);
    assert!(out.contains("no failure"), "{out}");
}

#[test]
fn replay_crash_minimises_and_locates_a_mutant_failure() {
    let d = tmp("mutant");
    let models = d.join("models");
    copy_dir(Path::new("models"), &models);
    let vma = models.join("v7.3-rc4/lib/vma.rmap");
    let text = std::fs::read_to_string(&vma).unwrap();
    let link = "__vma_link_file(vp->insert, vp->insert->vm_file->f_mapping);";
    assert!(text.contains(link), "the mutation point moved");
    std::fs::write(&vma, text.replace(link, ";")).unwrap();
    let crash = d.join("crash");
    std::fs::write(&crash, input()).unwrap();
    let (rc, out, err) = run(replay_crash, &crash, &models);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(out.contains("minimised from 3 to 1 calls"), "{out}");
    assert!(
        out.contains("failing call 1: sys_munmap(mm#0, 3, 5)"),
        "{out}"
    );
    // the split's new VMA never enters the file tree: found when the call returns
    assert!(out.contains("when the call returned"), "{out}");
    assert!(
        out.contains("membership: vma#1 maps file#0 but is not in mapping#0's tree"),
        "{out}"
    );
    let (rc, out, _) = run(fuzz_decode, &crash, &models);
    assert_eq!(rc, 0);
    assert!(out.contains("# call 3 fails: "), "{out}");
    // `rmapcheck replay --crash CRASH` prints the exhaustive checker's text trace of the
    // minimised case; without --crash a file that is not a trace is an error
    let args = rmapcheck::cmd::replay::ReplayArgs {
        file: crash.clone(),
        model: Some(models.clone()),
        ..Default::default()
    };
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let rc = rmapcheck::cmd::exit_status(rmapcheck::cmd::replay::replay(&args, &mut o), &mut e);
    let msg = String::from_utf8_lossy(&e).to_string();
    assert_eq!(rc, 2, "{msg}");
    assert!(
        msg.contains("not a trace") || msg.contains("not JSON"),
        "{msg}"
    );
    assert!(o.is_empty());
    let args = rmapcheck::cmd::replay::ReplayArgs {
        crash: true,
        ..args
    };
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let rc = rmapcheck::cmd::exit_status(rmapcheck::cmd::replay::replay(&args, &mut o), &mut e);
    let trace = String::from_utf8_lossy(&o).to_string();
    assert_eq!(rc, 1, "{trace}{}", String::from_utf8_lossy(&e));
    assert!(trace.starts_with("rmapcheck counterexample:"), "{trace}");
    assert!(
        trace.contains("violates\n    membership") || trace.contains("violates membership"),
        "{trace}"
    );
    assert!(
        trace.contains("1. munmap(mm#0, [3,5))   <-- fails")
            && trace.contains("= sys_munmap(mm#0, 3, 5)"),
        "{trace}"
    );
    assert!(
        trace.lines().all(|l| l.len() <= 80 && l.is_ascii()),
        "{trace}"
    );
    // bad input is an error, not a panic
    let (rc, _, err) = run(replay_crash, &d.join("missing"), &models);
    assert_eq!(rc, 2);
    assert!(!err.is_empty());
    let (rc, _, err) = run(fuzz_decode, &crash, &d.join("no-models"));
    assert_eq!(rc, 2);
    assert!(!err.is_empty());
}
