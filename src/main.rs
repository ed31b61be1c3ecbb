//! The `rmapcheck` command line.

use clap::{Parser, Subcommand};

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

#[derive(Subcommand)]
enum Cmd {
    /// Check models (not yet implemented: placeholder).
    Check,
}

fn main() {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Check => {
            eprintln!("rmapcheck check: not implemented yet");
            std::process::exit(2);
        }
    }
}
