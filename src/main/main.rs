//! The `rmapcheck` command line: the options ([`cli_opts`], [`commands`], clap) and their
//! dispatch to the library's commands (`rmapcheck::cmd`). It holds no checking of its own.

use std::io::Write;

use clap::Parser;
use rmapcheck::cmd::exit_status;

mod cli_opts;
mod commands;
mod dispatch;
use commands::Cmd;
use dispatch::run;

#[derive(Parser)]
#[command(
    name = "rmapcheck",
    version,
    about = "Model checker for the Linux kernel's rmap tree updates"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

fn main() {
    let cli = Cli::parse();
    // SIGINT / SIGTERM end a search at its next call with an `incomplete` verdict (exit 3)
    rmapcheck::checker::budget::install_signal_handlers();
    let (out, err) = (&mut std::io::stdout(), &mut std::io::stderr());
    // what is still buffered for standard output is part of the result
    let result = run(cli.cmd, out, err).and_then(|status| Ok(out.flush().map(|()| status)?));
    // the one place a command's result becomes the process's exit status
    std::process::exit(exit_status(result, err));
}
