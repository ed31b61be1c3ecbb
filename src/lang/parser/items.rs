//! Top-level items (`#include`, `#define`, struct declarations, function definitions; prototypes
//! and forward declarations are dropped) and the types they and declarations are written with.

use super::{PResult, ParseError, Parser};
use crate::lang::ast::{Field, FuncDef, Item, StructDecl, TypeName};
use crate::lang::lexer::Tok;

/// Integer type spellings; any run of them is one `int`.
const INT_WORDS: &[&str] = &[
    "int",
    "long",
    "short",
    "unsigned",
    "signed",
    "pgoff_t",
    "vm_flags_t",
    "size_t",
    "loff_t",
    "u64",
    "u32",
];

/// Words that are accepted before a type and ignored.
const QUALIFIERS: &[&str] = &[
    "const",
    "static",
    "inline",
    "__always_inline",
    "volatile",
    "extern",
    "noinline",
];

impl Parser<'_> {
    pub(super) fn item(&mut self) -> PResult<Option<Item>> {
        if self.is_punct("#") {
            return self.directive().map(Some);
        }
        if self.eat_punct(";") {
            return Ok(None);
        }
        if self.is_word("struct") {
            if let (Tok::Ident(_), Tok::Punct("{")) = (self.peek_tok(1), self.peek_tok(2)) {
                return self.struct_decl().map(|s| Some(Item::Struct(s)));
            }
            if let (Tok::Ident(_), Tok::Punct(";")) = (self.peek_tok(1), self.peek_tok(2)) {
                // forward declaration
                self.pos += 3;
                return Ok(None);
            }
        }
        let base = match self.base_type()? {
            Some(b) => b,
            None => return self.err(format!("expected a declaration, found {}", self.describe())),
        };
        let ret = self.pointer(base)?;
        let (name, name_loc) = self.ident("a function name")?;
        if !self.is_punct("(") {
            return self
                .err("only functions, structs, #include and #define may appear at top level");
        }
        let params = self.params()?;
        if self.eat_punct(";") {
            return Ok(None); // prototype
        }
        let body = self.block_body()?;
        Ok(Some(Item::Func(FuncDef {
            name,
            ret,
            params,
            body,
            loc: name_loc,
        })))
    }

    fn directive(&mut self) -> PResult<Item> {
        let hash = self.advance();
        let (word, wloc) = self.ident("a directive name")?;
        let same_line = |p: &Self| !p.tok().line_start && p.tok().tok != Tok::Eof;
        match word.as_str() {
            "include" => {
                if !same_line(self) {
                    return self.err("expected a file name in quotes after #include");
                }
                match self.advance().tok {
                    Tok::Str(path) => Ok(Item::Include {
                        path,
                        loc: hash.loc,
                    }),
                    _ => Err(ParseError {
                        loc: wloc,
                        message: "expected a file name in quotes after #include".into(),
                    }),
                }
            }
            "define" => {
                if !same_line(self) {
                    return self.err("expected a name after #define");
                }
                let (name, _) = self.ident("a name after #define")?;
                let mut parens = 0;
                while same_line(self) && self.is_punct("(") {
                    self.advance();
                    parens += 1;
                }
                let neg = same_line(self) && self.eat_punct("-");
                let value = match (&self.tok().tok, same_line(self)) {
                    (Tok::Int(v), true) => *v,
                    _ => return self.err("#define needs an integer literal value"),
                };
                self.advance();
                for _ in 0..parens {
                    self.expect_punct(")")?;
                }
                if same_line(self) {
                    return self.err("#define needs an integer literal value");
                }
                Ok(Item::Define {
                    name,
                    value: if neg { value.wrapping_neg() } else { value },
                    loc: hash.loc,
                })
            }
            other => Err(ParseError {
                loc: wloc,
                message: format!("unsupported directive `#{other}`"),
            }),
        }
    }

    fn struct_decl(&mut self) -> PResult<StructDecl> {
        self.advance(); // struct
        let (name, loc) = self.ident("a struct name")?;
        self.expect_punct("{")?;
        let mut fields = Vec::new();
        while !self.eat_punct("}") {
            let base = match self.base_type()? {
                Some(b) => b,
                None => {
                    return self.err(format!("expected a field type, found {}", self.describe()))
                }
            };
            loop {
                let ty = self.pointer(base.clone())?;
                let (fname, floc) = self.ident("a field name")?;
                fields.push(Field {
                    ty,
                    name: fname,
                    loc: floc,
                });
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct(";")?;
        }
        self.expect_punct(";")?;
        Ok(StructDecl { name, fields, loc })
    }

    fn params(&mut self) -> PResult<Vec<Field>> {
        self.expect_punct("(")?;
        let mut params = Vec::new();
        if self.is_word("void") && matches!(self.peek_tok(1), Tok::Punct(")")) {
            self.advance();
        }
        if self.eat_punct(")") {
            return Ok(params);
        }
        loop {
            let base = match self.base_type()? {
                Some(b) => b,
                None => {
                    return self.err(format!(
                        "expected a parameter type, found {}",
                        self.describe()
                    ))
                }
            };
            let ty = self.pointer(base)?;
            let (name, loc) = self.ident("a parameter name")?;
            params.push(Field { ty, name, loc });
            if self.eat_punct(")") {
                return Ok(params);
            }
            self.expect_punct(",")?;
        }
    }

    pub(super) fn is_type_start(&self) -> bool {
        match &self.tok().tok {
            Tok::Ident(s) => {
                matches!(s.as_str(), "void" | "bool" | "_Bool" | "struct")
                    || INT_WORDS.contains(&s.as_str())
                    || QUALIFIERS.contains(&s.as_str())
            }
            _ => false,
        }
    }

    /// Parses qualifiers and a base type (no `*`). `None` when no type starts here.
    pub(super) fn base_type(&mut self) -> PResult<Option<TypeName>> {
        while let Tok::Ident(s) = &self.tok().tok {
            if QUALIFIERS.contains(&s.as_str()) {
                self.advance();
            } else {
                break;
            }
        }
        let word = match &self.tok().tok {
            Tok::Ident(s) => s.clone(),
            _ => return Ok(None),
        };
        let ty = match word.as_str() {
            "void" => {
                self.advance();
                TypeName::Void
            }
            "bool" | "_Bool" => {
                self.advance();
                TypeName::Bool
            }
            "struct" => {
                self.advance();
                let (tag, _) = self.ident("a struct name")?;
                TypeName::Struct(tag)
            }
            w if INT_WORDS.contains(&w) => {
                while let Tok::Ident(s) = &self.tok().tok {
                    if INT_WORDS.contains(&s.as_str()) || QUALIFIERS.contains(&s.as_str()) {
                        self.advance();
                    } else {
                        break;
                    }
                }
                TypeName::Int
            }
            _ => return Ok(None),
        };
        // trailing qualifiers such as `struct vm_area_struct const *`
        while self.is_word("const") || self.is_word("volatile") {
            self.advance();
        }
        Ok(Some(ty))
    }

    /// Applies an optional `*` to a base type.
    pub(super) fn pointer(&mut self, base: TypeName) -> PResult<TypeName> {
        if !self.is_punct("*") {
            return Ok(base);
        }
        let loc = self.loc();
        self.advance();
        while self.is_word("const") {
            self.advance();
        }
        if self.is_punct("*") {
            return self.err("pointers to pointers are not supported");
        }
        match base {
            TypeName::Struct(tag) => Ok(TypeName::Ptr(tag)),
            _ => Err(ParseError {
                loc,
                message: "only pointers to structs are supported".into(),
            }),
        }
    }
}
