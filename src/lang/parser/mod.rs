//! Recursive-descent parser from tokens to the syntax tree of one file. Stops at the first
//! syntax error; `#include` is left as an item for the loader to resolve.
//!
//! This module holds the entry point, the cursor over the tokens and its small helpers; the
//! grammar is split into [`items`] (top-level items and types), [`stmt`] (statements and
//! declarations) and [`expr`] (expressions).

mod expr;
mod items;
mod stmt;

use super::ast::Item;
use super::diag::SrcLoc;
use super::lexer::{lex, Tok, Token};

/// A syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub loc: SrcLoc,
    pub message: String,
}

type PResult<T> = Result<T, ParseError>;

/// Deepest nesting of expressions and statements accepted (protects the tool's own stack).
const MAX_DEPTH: u32 = 100;

/// Parses one file's text.
pub fn parse(file: u16, text: &str) -> PResult<Vec<Item>> {
    let toks = lex(file, text).map_err(|e| ParseError {
        loc: e.loc,
        message: e.message,
    })?;
    let mut p = Parser {
        toks,
        pos: 0,
        text,
        depth: 0,
    };
    let mut items = Vec::new();
    while !p.at_eof() {
        if let Some(item) = p.item()? {
            items.push(item);
        }
    }
    Ok(items)
}

/// A cursor over one file's tokens; `depth` counts the statements and expressions being parsed.
struct Parser<'a> {
    toks: Vec<Token>,
    pos: usize,
    text: &'a str,
    depth: u32,
}

impl Parser<'_> {
    fn tok(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek_tok(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    fn loc(&self) -> SrcLoc {
        self.tok().loc
    }

    fn at_eof(&self) -> bool {
        self.tok().tok == Tok::Eof
    }

    fn advance(&mut self) -> Token {
        let t = self.tok().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            loc: self.loc(),
            message: message.into(),
        })
    }

    fn describe(&self) -> String {
        match &self.tok().tok {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of file".into(),
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(&self.tok().tok, Tok::Punct(q) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(&self.tok().tok, Tok::Ident(s) if s == w)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.err(format!("expected `{p}`, found {}", self.describe()))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(String, SrcLoc)> {
        match &self.tok().tok {
            Tok::Ident(s) => {
                let s = s.clone();
                let loc = self.loc();
                self.advance();
                Ok((s, loc))
            }
            _ => self.err(format!("expected {what}, found {}", self.describe())),
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("nesting too deep");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::ast::{ExprKind, StmtKind, TypeName};

    #[test]
    fn prototypes_and_forward_declarations_are_dropped() {
        let items = parse(0, "struct x;\nvoid f(long a);\nvoid f(long a) {}\n").unwrap();
        assert_eq!(items.len(), 1);
        assert!(matches!(&items[0], Item::Func(f) if f.name == "f" && f.params.len() == 1));
    }

    #[test]
    fn multiple_declarators_keep_their_own_stars() {
        let items = parse(0, "void f(void) { struct s *a, b, *c; }").unwrap();
        let Item::Func(f) = &items[0] else { panic!() };
        let StmtKind::Decl(ds) = &f.body[0].kind else {
            panic!()
        };
        let tys: Vec<&TypeName> = ds.iter().map(|d| &d.ty).collect();
        assert_eq!(
            tys,
            vec![
                &TypeName::Ptr("s".into()),
                &TypeName::Struct("s".into()),
                &TypeName::Ptr("s".into())
            ]
        );
    }

    #[test]
    fn define_must_stay_on_its_line() {
        assert!(parse(0, "#define X\n1\n").is_err());
        // only a literal, optionally negated and parenthesised
        assert!(parse(0, "#define X (-(5))\n").is_err());
        assert!(matches!(
            parse(0, "#define Y (-5)\n").unwrap()[0],
            Item::Define { value: -5, .. }
        ));
    }

    #[test]
    fn likely_is_transparent_and_warn_keeps_text() {
        let items = parse(
            0,
            "void f(long a) { if (unlikely(WARN_ON(a  > 1))) return; }",
        )
        .unwrap();
        let Item::Func(f) = &items[0] else { panic!() };
        let StmtKind::If { cond, .. } = &f.body[0].kind else {
            panic!()
        };
        assert!(matches!(&cond.kind, ExprKind::Warn { text, .. } if text == "a > 1"));
    }
}
