//! The model language: lexer, parser, diagnostics, type checker and compiler to a step program.
//!
//! Entry points: [`load_file`] and [`load_str`] give a [`Program`] or a list of
//! [`Diagnostic`]s, which [`render_diagnostics`] prints.
//!
//! It names nothing of the interpreter (`exec`) or any layer above it.

pub mod ast;
pub mod check;
pub mod compile;
pub(crate) mod diag;
pub(crate) mod lexer;
pub mod load;
pub mod marks;
pub mod parser;
pub mod pretty;
pub mod program;
pub mod types;

pub use diag::{render_diagnostics, Diagnostic, SourceMap, SrcLoc};
pub use load::{load_file, load_str};
pub use program::{FuncId, FuncSig, FuncSource, Program};
