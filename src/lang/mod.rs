//! The model language: lexer, parser, diagnostics, type checker and compiler to a step program.

pub mod types;
