//! Recursive-descent parser from tokens to the syntax tree of one file. Stops at the first
//! syntax error; `#include` is left as an item for the loader to resolve.

use super::ast::*;
use super::diag::SrcLoc;
use super::lexer::{lex, Tok, Token};

/// A syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub loc: SrcLoc,
    pub message: String,
}

type PResult<T> = Result<T, ParseError>;

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

    // ---- top level ----

    fn item(&mut self) -> PResult<Option<Item>> {
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
        let loc = self.loc();
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
        let _ = loc;
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

    // ---- types ----

    fn is_type_start(&self) -> bool {
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
    fn base_type(&mut self) -> PResult<Option<TypeName>> {
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
    fn pointer(&mut self, base: TypeName) -> PResult<TypeName> {
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

    // ---- statements ----

    fn block_body(&mut self) -> PResult<Vec<Stmt>> {
        self.expect_punct("{")?;
        let mut stmts = Vec::new();
        while !self.eat_punct("}") {
            if self.at_eof() {
                return self.err("expected `}`, found end of file");
            }
            stmts.push(self.stmt()?);
        }
        Ok(stmts)
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.depth -= 1;
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        let mk = |kind| Ok(Stmt { kind, loc });
        if self.is_punct("{") {
            return mk(StmtKind::Block(self.block_body()?));
        }
        if self.eat_punct(";") {
            return mk(StmtKind::Block(Vec::new()));
        }
        let word = match &self.tok().tok {
            Tok::Ident(s) => s.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "if" => {
                self.advance();
                let cond = self.paren_expr()?;
                let then = Box::new(self.stmt()?);
                let els = if self.is_word("else") {
                    self.advance();
                    Some(Box::new(self.stmt()?))
                } else {
                    None
                };
                mk(StmtKind::If { cond, then, els })
            }
            "while" => {
                self.advance();
                let cond = self.paren_expr()?;
                let body = Box::new(self.stmt()?);
                mk(StmtKind::While { cond, body })
            }
            "for" => {
                self.advance();
                self.expect_punct("(")?;
                let init = if self.eat_punct(";") {
                    None
                } else {
                    let s = self.simple_or_decl()?;
                    self.expect_punct(";")?;
                    Some(Box::new(s))
                };
                let cond = if self.is_punct(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_punct(";")?;
                let step = if self.is_punct(")") {
                    None
                } else {
                    Some(Box::new(self.simple()?))
                };
                self.expect_punct(")")?;
                let body = Box::new(self.stmt()?);
                mk(StmtKind::For {
                    init,
                    cond,
                    step,
                    body,
                })
            }
            "return" => {
                self.advance();
                let e = if self.is_punct(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_punct(";")?;
                mk(StmtKind::Return(e))
            }
            "break" | "continue" => {
                self.advance();
                self.expect_punct(";")?;
                mk(if word == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                })
            }
            "list_for_each_entry" | "list_for_each_entry_safe" | "list_for_each_entry_reverse"
                if matches!(self.peek_tok(1), Tok::Punct("(")) =>
            {
                let reverse = word == "list_for_each_entry_reverse";
                self.list_iter(word == "list_for_each_entry_safe", reverse, loc)
            }
            "else" => self.err("`else` without a matching `if`"),
            _ => {
                let s = self.simple_or_decl()?;
                self.expect_punct(";")?;
                Ok(s)
            }
        }
    }

    fn list_iter(&mut self, safe: bool, reverse: bool, loc: SrcLoc) -> PResult<Stmt> {
        self.advance();
        self.expect_punct("(")?;
        let (it, _) = self.ident("the iterator variable")?;
        self.expect_punct(",")?;
        let tmp = if safe {
            let (t, _) = self.ident("the temporary variable")?;
            self.expect_punct(",")?;
            Some(t)
        } else {
            None
        };
        let head_loc = self.loc();
        let e = self.expr()?;
        let (head, list) = match e.kind {
            ExprKind::AddrOf(inner) => match inner.kind {
                ExprKind::Field {
                    base,
                    field,
                    arrow: true,
                    ..
                } => (*base, field),
                _ => {
                    return Err(ParseError {
                        loc: head_loc,
                        message: "the list head must be written `&object->list`".into(),
                    })
                }
            },
            _ => {
                return Err(ParseError {
                    loc: head_loc,
                    message: "the list head must be written `&object->list`".into(),
                })
            }
        };
        self.expect_punct(",")?;
        let (member, _) = self.ident("the list member name")?;
        self.expect_punct(")")?;
        let body = Box::new(self.stmt()?);
        Ok(Stmt {
            kind: StmtKind::ListForEach {
                reverse,
                it,
                tmp,
                head,
                list,
                member,
                body,
            },
            loc,
        })
    }

    fn paren_expr(&mut self) -> PResult<Expr> {
        self.expect_punct("(")?;
        let e = self.expr()?;
        self.expect_punct(")")?;
        Ok(e)
    }

    /// A declaration or a simple statement, without the final `;`.
    fn simple_or_decl(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        if self.is_type_start() {
            return self.decl(loc);
        }
        if let (Tok::Ident(a), Tok::Ident(_)) = (&self.tok().tok, self.peek_tok(1)) {
            return self.err(format!("unknown type `{a}`"));
        }
        if let (Tok::Ident(a), Tok::Punct("*"), Tok::Ident(_), Tok::Punct(p)) = (
            &self.tok().tok,
            self.peek_tok(1),
            self.peek_tok(2),
            self.peek_tok(3),
        ) {
            if matches!(*p, ";" | "=" | ",") {
                return self.err(format!("unknown type `{a}`"));
            }
        }
        self.simple()
    }

    fn decl(&mut self, loc: SrcLoc) -> PResult<Stmt> {
        let base = match self.base_type()? {
            Some(b) => b,
            None => return self.err(format!("expected a type, found {}", self.describe())),
        };
        let mut decls = Vec::new();
        loop {
            let ty = self.pointer(base.clone())?;
            let (name, nloc) = self.ident("a variable name")?;
            let init = if self.eat_punct("=") {
                Some(self.init()?)
            } else {
                None
            };
            decls.push(Declarator {
                ty,
                name,
                init,
                loc: nloc,
            });
            if !self.eat_punct(",") {
                break;
            }
        }
        Ok(Stmt {
            kind: StmtKind::Decl(decls),
            loc,
        })
    }

    fn init(&mut self) -> PResult<Init> {
        if !self.eat_punct("{") {
            return Ok(Init::Expr(self.expr()?));
        }
        let mut fields = Vec::new();
        while !self.eat_punct("}") {
            let loc = self.loc();
            if !self.eat_punct(".") {
                return self.err("expected `.field = value` in a struct initialiser");
            }
            let (name, _) = self.ident("a field name")?;
            self.expect_punct("=")?;
            let e = self.expr()?;
            fields.push((name, e, loc));
            if !self.eat_punct(",") {
                self.expect_punct("}")?;
                break;
            }
        }
        Ok(Init::Struct(fields))
    }

    /// Assignment, increment/decrement or expression statement, without the `;`.
    fn simple(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        if self.is_punct("++") || self.is_punct("--") {
            let inc = self.is_punct("++");
            self.advance();
            let lhs = self.unary()?;
            return Ok(Stmt {
                kind: StmtKind::IncDec { lhs, inc },
                loc,
            });
        }
        let lhs = self.expr()?;
        let assign = match &self.tok().tok {
            Tok::Punct("=") => Some(AssignOp::Set),
            Tok::Punct(p) if p.len() >= 2 && p.ends_with('=') => {
                BinOp::from_text(&p[..p.len() - 1])
                    .filter(|_| !matches!(*p, "==" | "!=" | "<=" | ">="))
                    .map(AssignOp::With)
            }
            _ => None,
        };
        let kind = if let Some(op) = assign {
            self.advance();
            let rhs = self.expr()?;
            StmtKind::Assign { lhs, op, rhs }
        } else if self.is_punct("++") || self.is_punct("--") {
            let inc = self.is_punct("++");
            self.advance();
            StmtKind::IncDec { lhs, inc }
        } else {
            StmtKind::Expr(lhs)
        };
        Ok(Stmt { kind, loc })
    }

    // ---- expressions ----

    fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.cond_expr();
        self.depth -= 1;
        r
    }

    fn cond_expr(&mut self) -> PResult<Expr> {
        let c = self.binary(1)?;
        if !self.eat_punct("?") {
            return Ok(c);
        }
        let a = self.expr()?;
        self.expect_punct(":")?;
        let b = self.expr()?;
        let loc = c.loc;
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            loc,
        })
    }

    /// The binary operator at the cursor, if it binds at least as tightly as `min_prec`.
    fn binary_op(&self, min_prec: u8) -> Option<BinOp> {
        match &self.tok().tok {
            Tok::Punct(p) => BinOp::from_text(p).filter(|op| op.prec() >= min_prec),
            _ => None,
        }
    }

    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.binary_op(min_prec) {
            self.advance();
            let rhs = self.binary(op.prec() + 1)?;
            let loc = lhs.loc;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                loc,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let op = match &self.tok().tok {
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("~") => Some(UnOp::BitNot),
            _ => None,
        };
        if let Some(op) = op {
            self.advance();
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                loc,
            });
        }
        if self.eat_punct("&") {
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::AddrOf(Box::new(e)),
                loc,
            });
        }
        if self.is_punct("*") {
            return self.err("`*` dereference is not supported; use `->`");
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            let arrow = if self.is_punct("->") {
                true
            } else if self.is_punct(".") {
                false
            } else {
                break;
            };
            self.advance();
            let (field, field_loc) = self.ident("a field name")?;
            let loc = e.loc;
            e = Expr {
                kind: ExprKind::Field {
                    base: Box::new(e),
                    field,
                    arrow,
                    field_loc,
                },
                loc,
            };
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let mk = |kind| Ok(Expr { kind, loc });
        match self.tok().tok.clone() {
            Tok::Int(v) => {
                self.advance();
                mk(ExprKind::Int(v))
            }
            Tok::Punct("(") => {
                self.advance();
                if self.is_type_start() {
                    return self.err("casts are not supported");
                }
                let e = self.expr()?;
                self.expect_punct(")")?;
                Ok(e)
            }
            Tok::Ident(name) => {
                self.advance();
                match name.as_str() {
                    "true" => return mk(ExprKind::Bool(true)),
                    "false" => return mk(ExprKind::Bool(false)),
                    "NULL" => return mk(ExprKind::Null),
                    _ => {}
                }
                if !self.is_punct("(") {
                    return mk(ExprKind::Ident(name));
                }
                if WARN_MACROS.contains(&name.as_str()) {
                    self.advance();
                    let first = self.pos;
                    let cond = self.expr()?;
                    let text = self.source_text(first, self.pos);
                    self.expect_punct(")")?;
                    return mk(ExprKind::Warn {
                        macro_name: name,
                        cond: Box::new(cond),
                        text,
                    });
                }
                let args = self.args()?;
                if name == "likely" || name == "unlikely" {
                    if args.len() != 1 {
                        return Err(ParseError {
                            loc,
                            message: format!("`{name}` takes exactly one argument"),
                        });
                    }
                    return Ok(args.into_iter().next().expect("one argument"));
                }
                mk(ExprKind::Call { name, args })
            }
            _ => self.err(format!("expected an expression, found {}", self.describe())),
        }
    }

    fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if self.eat_punct(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat_punct(")") {
                return Ok(args);
            }
            self.expect_punct(",")?;
        }
    }

    /// The source text of tokens `from..to`, with each gap between tokens shown as one space.
    fn source_text(&self, from: usize, to: usize) -> String {
        let mut s = String::new();
        let mut prev_end = None;
        for t in &self.toks[from..to] {
            if let Some(pe) = prev_end {
                if t.start > pe {
                    s.push(' ');
                }
            }
            s.push_str(&self.text[t.start..t.end]);
            prev_end = Some(t.end);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
