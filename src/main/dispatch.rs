//! Dispatch: each subcommand of the command line handed to its `rmapcheck::cmd` function.

use std::io::Write;

use rmapcheck::cmd::{CmdError, CmdResult};

use super::commands::Cmd;

/// Run one subcommand, writing to `out` and `err`.
pub(crate) fn run(cmd: Cmd, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    use rmapcheck::cmd;
    match cmd {
        Cmd::Check {
            models,
            scope,
            format,
            trace_dir,
            progress,
            repro_dir,
            simulate,
            cluster: c,
            symmetry,
            file_symmetry,
            commute,
            unreduced,
            engine,
            audit,
            reads,
            kernel,
        } => {
            let cluster = match rmapcheck::explore::distributed::Cluster::from_flags(
                c.workers,
                c.process,
                c.processes,
                c.hostfile.as_deref(),
                c.connect_timeout,
            ) {
                Ok(cluster) => cluster,
                Err(e) => return Err(CmdError::line(format_args!("rmapcheck check: {e}"))),
            };
            if let Some(k) = kernel.kernel {
                if models.len() > 1 {
                    return Err(CmdError::line(format_args!(
                        "rmapcheck check --kernel: one model chooses the C search's calls; {} given",
                        models.len()
                    )));
                }
                let args = cmd::kernel::ccheck::CcheckArgs {
                    model: models
                        .first()
                        .cloned()
                        .unwrap_or_else(|| rmapcheck::models::BASELINE.into()),
                    kernel: k,
                    patches: kernel.patch,
                    mutants: kernel.c_mutant,
                    scope: scope.scope,
                    mode: scope.mode,
                    max_depth: scope.max_depth,
                    format,
                    threads: kernel.jobs,
                    accept_unreached: kernel.accept_unreached,
                    deepen_budget: kernel.deepen_budget,
                    progress: !progress.quiet,
                    simulate: simulate.simulate.map(|walks| {
                        rmapcheck::explore::simulate::Simulation {
                            walks,
                            depth: simulate.depth,
                            seed: simulate.seed,
                        }
                    }),
                    cluster: cluster.clone(),
                };
                return cmd::kernel::ccheck::ccheck(&args, out, err);
            }
            let args = cmd::check::CheckArgs {
                models,
                scope: scope.scope,
                mode: scope.mode,
                max_depth: scope.max_depth,
                symmetry,
                file_symmetry,
                commute,
                unreduced,
                engine,
                audit,
                reads,
                format,
                trace_dir,
                repro_dir,
                progress: !progress.quiet,
                simulate: simulate
                    .simulate
                    .map(|walks| rmapcheck::explore::simulate::Simulation {
                        walks,
                        depth: simulate.depth,
                        seed: simulate.seed,
                    }),
                cluster,
                accept_unreached: kernel.accept_unreached,
                deepen_budget: kernel.deepen_budget,
            };
            cmd::check::check(&args, out, err)
        }
        Cmd::List { builtins, format } => {
            use cmd::check::TraceFormat;
            use cmd::list::BuiltinsFormat;
            match (builtins, format) {
                (false, TraceFormat::Text) => cmd::list::list(out),
                (true, TraceFormat::Text) => cmd::list::builtins(BuiltinsFormat::Text, out),
                (true, TraceFormat::Markdown) => cmd::list::builtins(BuiltinsFormat::Markdown, out),
                (_, f) => Err(cmd::CmdError::line(format_args!(
                    "rmapcheck list: --format {f:?} is not offered here (text; markdown with \
                     --builtins)"
                ))),
            }
        }
        Cmd::Kdiff {
            model,
            scope,
            max_depth,
            sample,
            walks,
            length,
            seed,
            show,
            tolerate_known,
            progress,
        } => {
            let args = cmd::kernel::kdiff::KdiffArgs {
                model,
                scope,
                max_depth,
                sample,
                walks,
                length,
                seed,
                show,
                tolerate_known,
                progress: !progress.quiet,
            };
            cmd::kernel::kdiff::kdiff_cmd(&args, out, err)
        }
        Cmd::Cdiff {
            model,
            kernel,
            scope,
            max_depth,
            sample,
            walks,
            length,
            seed,
            sequence,
            show,
            tolerate_known,
            build_only,
            patch,
            corrupt_c,
            progress,
        } => {
            let args = cmd::kernel::cdiff::CdiffArgs {
                patches: patch,
                model,
                kernel,
                scope,
                max_depth,
                sample,
                walks,
                length,
                seed,
                sequence,
                show,
                tolerate_known,
                progress: !progress.quiet,
                corrupt: corrupt_c,
                build_only,
            };
            cmd::kernel::cdiff::cdiff_cmd(&args, out, err)
        }
        Cmd::Repro { file, baseline } => {
            cmd::kernel::repro::repro_cmd(&file.trace, file.output.as_deref(), &baseline, out, err)
        }
        Cmd::Report { file, model } => {
            cmd::report::report(&file.trace, file.output.as_deref(), model.as_deref(), out)
        }
        Cmd::Compare {
            base,
            patch,
            scope,
            scenario,
            procs,
            progress,
        } => {
            let args = cmd::check::compare::CompareArgs {
                base,
                patch,
                check: cmd::check::CheckArgs {
                    scope: scope.scope,
                    mode: scope.mode,
                    max_depth: scope.max_depth,
                    progress: !progress.quiet,
                    ..Default::default()
                },
                scenario,
                procs,
            };
            cmd::check::compare::compare(&args, out, err)
        }
        Cmd::Drift {
            model,
            kernel,
            diff,
            stand_ins,
        } => cmd::drift::drift(
            &cmd::drift::DriftArgs {
                model,
                kernel,
                diff,
                stand_ins,
            },
            out,
        ),
        Cmd::Diff { patch, base } => cmd::diff::diff(&cmd::diff::DiffArgs { patch, base }, out),
        Cmd::New {
            name,
            base,
            dir,
            proofs,
        } => cmd::new::new_patch(
            &cmd::new::NewArgs {
                name,
                base,
                dir,
                proofs,
            },
            out,
        ),
        Cmd::Prove {
            files,
            verbose,
            format,
            progress,
        } => {
            let args = cmd::check::prove::ProveArgs {
                files,
                verbose,
                format,
                progress: !progress.quiet,
            };
            cmd::check::prove::prove(&args, out, err)
        }
        Cmd::Replay {
            file,
            model,
            minimise,
            reads,
            crash,
            emit_scenario,
        } => {
            let args = cmd::replay::ReplayArgs {
                file,
                model,
                minimise,
                reads,
                crash,
                emit_scenario,
            };
            cmd::replay::replay(&args, out)
        }
        Cmd::Tree { file } => cmd::tree::run(file, out, err),
        Cmd::Cpatch { kernel, spec } => cmd::kernel::cpatch::cpatch(&kernel, &spec, out),
        Cmd::Creplay {
            calls,
            kernel,
            patch,
            c_mutant,
            model,
        } => cmd::kernel::creplay::creplay(
            &cmd::kernel::creplay::Args {
                calls,
                kernel,
                patches: patch,
                mutants: c_mutant,
                model,
            },
            out,
        ),
        Cmd::Review {
            series,
            kernel,
            output,
            model,
            scope,
            max_depth,
            jobs,
            progress,
        } => {
            let args = cmd::kernel::review::ReviewArgs {
                series,
                kernel,
                output,
                model,
                scope,
                max_depth,
                threads: jobs,
                progress: !progress.quiet,
            };
            cmd::kernel::review::review(&args, out, err)
        }
        Cmd::Run { model, ops } => cmd::run::run(&model, &ops, out),
        Cmd::FuzzDecode { input } => {
            cmd::fuzz::fuzz_decode(&input.crash, input.models.as_deref(), out)
        }
        Cmd::ReplayCrash { input } => {
            cmd::fuzz::replay_crash(&input.crash, input.models.as_deref(), out)
        }
        Cmd::Interleave {
            model,
            ops,
            walker,
            walkers,
            kinds,
            scope,
            no_reduction,
            audit,
            max_states,
            progress,
        } => {
            let sc = match rmapcheck::scope::Scope::load(scope.as_deref().unwrap_or("default")) {
                Ok(s) => s,
                Err(e) => return Err(CmdError::line(format_args!("rmapcheck interleave: {e}"))),
            };
            let args = cmd::interleave::InterleaveArgs {
                model,
                ops,
                walker,
                walkers: walkers.unwrap_or(sc.walkers.max(1) as usize),
                kinds: if kinds.is_empty() {
                    sc.walker_kinds
                } else {
                    kinds
                },
                no_reduction,
                audit,
                max_states,
                progress: !progress.quiet,
            };
            cmd::interleave::interleave(&args, out)
        }
        Cmd::Locks { model, scope } => cmd::locks::locks(&model, scope.as_deref(), out, err),
    }
}
