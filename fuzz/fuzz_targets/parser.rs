//! The model loader on hostile input: raw bytes, a soup of the language's own tokens, and the
//! baseline model with bytes-driven edits. `load_str` must return a program or diagnostics
//! (rendering them must work too), never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rmapcheck::lang::types::Schema;
use rmapcheck::lang::{load_str, render_diagnostics, Program};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

struct Ctx {
    schema: Schema,
    vocab: Vec<String>,
    /// The baseline with its includes inlined, and the directory includes resolve against.
    model: String,
    dir: PathBuf,
}

const PUNCT: &[&str] = &[
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "(", ")", "{", "}", "[", "]", ";", ",", ".", "&",
    "*", "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", "=", "#",
];
const WORDS: &[&str] = &[
    "struct",
    "static",
    "if",
    "else",
    "for",
    "while",
    "return",
    "break",
    "continue",
    "bool",
    "int",
    "long",
    "unsigned",
    "void",
    "true",
    "false",
    "NULL",
    "const",
    "#define",
    "#include",
    "pgoff_t",
    "vm_flags_t",
    "list_for_each_entry",
    "list_for_each_entry_reverse",
    "list_for_each_entry_safe",
    "VM_WARN_ON",
    "VM_WARN_ON_ONCE",
    "VM_BUG_ON",
    "vma_prepare",
    "vma_merge_struct",
    "vp",
    "vmg",
    "vma",
    "x",
    "f",
    "0",
    "1",
    "0x10UL",
    "18446744073709551615",
    "\"lib/vma_h.rmap\"",
    "/*",
    "*/",
    "//",
    "\n",
    "same_vma",
    "same_anon_vma",
];

fn ctx() -> &'static Ctx {
    static C: OnceLock<Ctx> = OnceLock::new();
    C.get_or_init(|| {
        let schema = rmapcheck::world::schema();
        let mut vocab: Vec<String> = PUNCT.iter().chain(WORDS).map(|s| s.to_string()).collect();
        vocab.extend(schema.builtins.keys().cloned());
        for (name, fields) in &schema.structs {
            vocab.push(name.clone());
            vocab.extend(fields.iter().map(|f| f.name.clone()));
        }
        let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let dir = rmapcheck::fuzzing::models_dir(&default).join("v7.3-rc4");
        let mut model = String::new();
        if let Ok(top) = std::fs::read_to_string(dir.join("baseline.rmap")) {
            for line in top.lines() {
                match line
                    .strip_prefix("#include \"")
                    .and_then(|l| l.strip_suffix('"'))
                {
                    Some(inc) => {
                        model += &std::fs::read_to_string(dir.join(inc)).unwrap_or_default()
                    }
                    None => model += line,
                }
                model.push('\n');
            }
        }
        Ctx {
            schema,
            vocab,
            model,
            dir,
        }
    })
}

fn check(c: &Ctx, text: &str) -> Option<Program> {
    match load_str("fuzz.rmap", text, &c.dir, &c.schema) {
        Ok(p) => Some(p),
        Err(d) => {
            assert!(!d.is_empty(), "load failed without a diagnostic");
            let _ = render_diagnostics(&d);
            None
        }
    }
}

fn boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let c = ctx();
    match mode % 3 {
        0 => {
            check(c, &String::from_utf8_lossy(rest));
        }
        1 => {
            let mut text = String::new();
            for &b in rest {
                text += &c.vocab[b as usize % c.vocab.len()];
                text.push(' ');
            }
            check(c, &text);
        }
        _ => {
            // edits of four bytes each: what, where (two bytes, scaled to the text), which token
            let mut text = c.model.clone();
            for e in rest.chunks(4).take(16) {
                let [what, hi, lo, tok] = [
                    e[0],
                    *e.get(1).unwrap_or(&0),
                    *e.get(2).unwrap_or(&0),
                    *e.get(3).unwrap_or(&0),
                ];
                let at = boundary(
                    &text,
                    (usize::from(hi) << 8 | usize::from(lo)) * text.len() / 65536,
                );
                match what % 3 {
                    0 => {
                        text.insert_str(at, &format!(" {} ", c.vocab[tok as usize % c.vocab.len()]))
                    }
                    1 => {
                        let end = boundary(&text, at + 1 + tok as usize % 16);
                        text.replace_range(at..end, "");
                    }
                    _ => {
                        let end = boundary(&text, at + 1 + tok as usize);
                        let dup = text[at..end].to_string();
                        text.insert_str(at, &dup);
                    }
                }
            }
            check(c, &text);
        }
    }
});
