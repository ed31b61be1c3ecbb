//! Plain text as mail carries it: prose filled to 72 columns, preformatted lines (calls,
//! paths, commands) kept within 80 and broken only at spaces, shell commands continued so that
//! they paste as they are, and mails joined into one mbox (mboxrd). What the replies of
//! [`super::reply`] are written with.

/// The widest line a reply has.
pub const WIDTH: usize = 80;
/// Prose is filled to this width, as mail is.
const FILL: usize = 72;

/// `text` filled to [`FILL`] columns, each line after the first indented by `hang`; lines
/// break at spaces only (a path or a name is never split at its `/` or `-`).
pub(crate) fn fill(text: &str, first: &str, hang: &str) -> String {
    let o = textwrap::Options::new(FILL)
        .initial_indent(first)
        .subsequent_indent(hang)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(true);
    textwrap::fill(text, o) + "\n"
}

/// A preformatted line kept as it is when it fits, else broken at its last space that keeps
/// the piece within [`WIDTH`] (anywhere, when there is none), with continuation lines indented
/// by `hang`.
pub(crate) fn pre(line: &str, hang: &str) -> String {
    let mut out = String::new();
    let mut rest: Vec<char> = line.chars().collect();
    let mut lead = String::new();
    loop {
        let room = WIDTH - lead.chars().count();
        if rest.len() <= room {
            out += &lead;
            out.extend(rest.iter());
            out = out.trim_end_matches(' ').to_string();
            out.push('\n');
            return out;
        }
        // the indentation is not a place to break
        let body = rest.iter().position(|c| *c != ' ').unwrap_or(0);
        let cut = (body + 1..=room)
            .rev()
            .find(|&i| rest[i] == ' ')
            .unwrap_or(room);
        out += &lead;
        out.extend(rest[..cut].iter());
        out = out.trim_end_matches(' ').to_string();
        out.push('\n');
        rest = rest[cut..]
            .iter()
            .copied()
            .skip_while(|c| *c == ' ')
            .collect();
        lead = hang.to_string();
    }
}

/// A shell command, `$ ` and its words, continued with ` \` onto lines indented by 8 so
/// that it can be pasted as it is.
pub(crate) fn shell(words: &[String]) -> String {
    let mut out = String::new();
    let mut line = "  $".to_string();
    for w in words {
        if line.len() + 1 + w.len() + 2 > WIDTH && line.trim() != "$" {
            out += &line;
            out += " \\\n";
            line = "       ".to_string();
        }
        line.push(' ');
        line += w;
    }
    out + &line + "\n"
}

/// The mails as one mbox (mboxrd: a body line starting with `From `, after any `>`, gains a
/// `>`).
pub fn mbox(mails: &[String]) -> String {
    let mut out = String::new();
    for m in mails {
        out += "From rmapcheck Thu Jan  1 00:00:00 1970\n";
        for l in m.lines() {
            if l.trim_start_matches('>').starts_with("From ") {
                out.push('>');
            }
            out += l;
            out.push('\n');
        }
        out.push('\n');
    }
    out
}
