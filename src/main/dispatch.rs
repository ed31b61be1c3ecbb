//! Dispatch: each subcommand of the command line handed to its `rmapcheck::cmd` function, its
//! options struct as clap filled it.

use std::io::Write;

use rmapcheck::cmd::{self, kernel::ccheck::CcheckArgs, CmdResult};

use super::commands::Cmd;

/// Run one subcommand, writing to `out` and `err`.
pub(crate) fn run(cmd: Cmd, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    match cmd {
        // `check --kernel` searches the kernel tree's C, `check` without it the models
        Cmd::Check(a) => match CcheckArgs::of_check(&a)? {
            Some(c) => cmd::kernel::ccheck::ccheck(&c, out, err),
            None => cmd::check::check(&a, out, err),
        },
        Cmd::List(a) => cmd::list::run(&a, out),
        Cmd::Kdiff(a) => cmd::kernel::kdiff::kdiff_cmd(&a, out, err),
        Cmd::Cdiff(a) => cmd::kernel::cdiff::cdiff_cmd(&a, out, err),
        Cmd::Repro { file, baseline } => {
            cmd::kernel::repro::repro_cmd(&file.trace, file.output.as_deref(), &baseline, out, err)
        }
        Cmd::Report { file, model } => {
            cmd::report::report(&file.trace, file.output.as_deref(), model.as_deref(), out)
        }
        Cmd::Compare(a) => cmd::check::compare::compare(&a, out, err),
        Cmd::Drift(a) => cmd::drift::drift(&a, out),
        Cmd::Diff(a) => cmd::diff::diff(&a, out),
        Cmd::New(a) => cmd::new::new_patch(&a, out),
        Cmd::Prove(a) => cmd::check::prove::prove(&a, out, err),
        Cmd::Replay(a) => cmd::replay::replay(&a, out),
        Cmd::Tree { file } => cmd::tree::run(file, out, err),
        Cmd::Cpatch { kernel, spec } => cmd::kernel::cpatch::cpatch(&kernel, &spec, out),
        Cmd::Creplay(a) => cmd::kernel::creplay::creplay(&a, out),
        Cmd::Review(a) => cmd::kernel::review::review(&a, out, err),
        Cmd::Run { model, ops } => cmd::run::run(&model, &ops, out),
        Cmd::FuzzDecode { input } => {
            cmd::fuzz::fuzz_decode(&input.crash, input.models.as_deref(), out)
        }
        Cmd::ReplayCrash { input } => {
            cmd::fuzz::replay_crash(&input.crash, input.models.as_deref(), out)
        }
        Cmd::Interleave(a) => cmd::interleave::interleave(&a, out),
        Cmd::Locks { model, scope } => cmd::locks::locks(&model, scope.as_deref(), out, err),
    }
}
