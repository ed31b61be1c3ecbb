//! Turns model source text into tokens, skipping whitespace and C comments. Each token records
//! where it starts (line and column) and its byte range in the text.

use super::diag::SrcLoc;

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Int(i64),
    Str(String),
    /// Operators and punctuation, e.g. `->`, `&&`, `{`, `#`.
    Punct(&'static str),
    Eof,
}

/// A token with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub loc: SrcLoc,
    /// Byte offsets of the token in the file text.
    pub start: usize,
    pub end: usize,
    /// Whether a line break separates this token from the previous one.
    pub line_start: bool,
}

/// A lexical error: where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LexError {
    pub loc: SrcLoc,
    pub message: String,
}

// longest first, so that `<<=` is not read as `<<` `=`
const PUNCTS: &[&str] = &[
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "(", ")", "{", "}", "[", "]", ";", ",", ".", "&",
    "*", "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", "=", "#",
];

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    col: u32,
    file: u16,
}

impl Lexer<'_> {
    fn loc(&self) -> SrcLoc {
        SrcLoc {
            file: self.file,
            line: self.line,
            col: self.col,
        }
    }

    fn peek(&self, off: usize) -> u8 {
        *self.bytes.get(self.pos + off).unwrap_or(&0)
    }

    /// Advances over one character (not byte), keeping line and column right.
    fn bump(&mut self) {
        if let Some(c) = self.text[self.pos..].chars().next() {
            self.pos += c.len_utf8();
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
    }

    /// Skips whitespace and comments; reports whether a newline was crossed.
    fn skip_trivia(&mut self) -> Result<bool, LexError> {
        let mut newline = false;
        loop {
            let c = self.peek(0);
            if c == b'\n' {
                newline = true;
                self.bump();
            } else if c == b' ' || c == b'\t' || c == b'\r' || c == 0x0c {
                self.bump();
            } else if c == b'\\' && (self.peek(1) == b'\n' || self.peek(1) == b'\r') {
                // line continuation
                self.bump();
            } else if c == b'/' && self.peek(1) == b'/' {
                while self.pos < self.bytes.len() && self.peek(0) != b'\n' {
                    self.bump();
                }
            } else if c == b'/' && self.peek(1) == b'*' {
                let start = self.loc();
                self.bump();
                self.bump();
                loop {
                    if self.pos >= self.bytes.len() {
                        return Err(LexError {
                            loc: start,
                            message: "unterminated comment".into(),
                        });
                    }
                    if self.peek(0) == b'*' && self.peek(1) == b'/' {
                        self.bump();
                        self.bump();
                        break;
                    }
                    if self.peek(0) == b'\n' {
                        newline = true;
                    }
                    self.bump();
                }
            } else {
                return Ok(newline);
            }
        }
    }

    fn number(&mut self, loc: SrcLoc) -> Result<Tok, LexError> {
        let start = self.pos;
        while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            self.bump();
        }
        let raw = &self.text[start..self.pos];
        let digits = raw.trim_end_matches(['u', 'U', 'l', 'L']);
        let parsed = if let Some(hex) = digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            u64::from_str_radix(hex, 16).ok()
        } else if digits.len() > 1 && digits.starts_with('0') {
            u64::from_str_radix(&digits[1..], 8).ok()
        } else {
            digits.parse::<u64>().ok()
        };
        match parsed {
            // unsigned constants above i64::MAX wrap, as all integers are 64-bit two's complement
            Some(v) => Ok(Tok::Int(v as i64)),
            None => Err(LexError {
                loc,
                message: format!("invalid integer literal `{raw}`"),
            }),
        }
    }

    fn string(&mut self, loc: SrcLoc) -> Result<Tok, LexError> {
        self.bump();
        let mut s = String::new();
        loop {
            match self.text[self.pos..].chars().next() {
                None | Some('\n') => {
                    return Err(LexError {
                        loc,
                        message: "unterminated string literal".into(),
                    })
                }
                Some('"') => {
                    self.bump();
                    return Ok(Tok::Str(s));
                }
                Some(c) => {
                    s.push(c);
                    self.bump();
                }
            }
        }
    }
}

/// Splits `text` (file number `file`) into tokens, ending with `Tok::Eof`.
pub(crate) fn lex(file: u16, text: &str) -> Result<Vec<Token>, LexError> {
    let mut lx = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
        col: 1,
        file,
    };
    let mut out = Vec::new();
    let mut first = true;
    loop {
        let newline = lx.skip_trivia()? || first;
        first = false;
        let loc = lx.loc();
        let start = lx.pos;
        let c = lx.peek(0);
        let tok = if lx.pos >= lx.bytes.len() {
            Tok::Eof
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while lx.peek(0).is_ascii_alphanumeric() || lx.peek(0) == b'_' {
                lx.bump();
            }
            Tok::Ident(text[start..lx.pos].to_string())
        } else if c.is_ascii_digit() {
            lx.number(loc)?
        } else if c == b'"' {
            lx.string(loc)?
        } else if let Some(p) = PUNCTS.iter().find(|p| text[lx.pos..].starts_with(**p)) {
            for _ in 0..p.len() {
                lx.bump();
            }
            Tok::Punct(p)
        } else {
            let ch = text[lx.pos..].chars().next().unwrap_or('?');
            return Err(LexError {
                loc,
                message: format!("unexpected character `{ch}`"),
            });
        };
        let eof = tok == Tok::Eof;
        out.push(Token {
            tok,
            loc,
            start,
            end: lx.pos,
            line_start: newline,
        });
        if eof {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_operators_numbers_and_comments() {
        let toks = lex(0, "a->b <<= 0x10UL; /* c */ // d\n x").unwrap();
        let kinds: Vec<Tok> = toks.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            kinds,
            vec![
                Tok::Ident("a".into()),
                Tok::Punct("->"),
                Tok::Ident("b".into()),
                Tok::Punct("<<="),
                Tok::Int(16),
                Tok::Punct(";"),
                Tok::Ident("x".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn reports_unterminated_comment_at_its_start() {
        let e = lex(0, "x\n  /* oops").unwrap_err();
        assert_eq!((e.loc.line, e.loc.col), (2, 3));
    }
}
