//! The model language: lexer, parser, diagnostics, type checker and compiler to a step program.

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod types;
