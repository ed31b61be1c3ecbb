//! The commands that search models: `check` ([`command`], its options [`args`], its scopes
//! [`scope`], its verdict lines [`verdict`], counterexample consequences [`consequence`] and
//! `--audit` [`audit`], where it saves traces and reproducers [`saves`]), `compare` (a patch model against the baseline) and `prove` (proof
//! obligations).

pub mod args;
pub(crate) mod audit;
pub mod command;
pub mod compare;
mod consequence;
mod out_files;
pub mod prove;
mod saves;
pub mod scope;
mod verdict;

pub use crate::cmd::formats::TraceFormat;
pub use args::CheckArgs;
pub use command::check;
