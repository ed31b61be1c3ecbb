//! The option groups that subcommands taking plain arguments share (flattened into each
//! subcommand's arguments by clap), apart from the subcommands themselves in `commands.rs`.
//! The library's commands carry their own option structs (`rmapcheck::cmd`).

use std::path::PathBuf;

/// A saved trace and where a command writes what it makes of it (`repro`, `report`).
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct TraceFileOpts {
    /// The trace (JSON from `check --format json` or `--trace-dir`).
    pub(crate) trace: PathBuf,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
}

/// A fuzzer input and the models it selects from (`fuzz-decode`, `replay-crash`).
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct CrashOpts {
    /// The fuzzer input.
    pub(crate) crash: PathBuf,
    /// Models directory (default: $RMAPCHECK_MODELS, else `models`).
    #[arg(long)]
    pub(crate) models: Option<PathBuf>,
}
