//! Formatting into a `String`, which cannot fail: `s.push_line(format_args!(...))` in place of
//! `writeln!(s, ...)` with its `Result` thrown away. The trait is implemented for `String` only,
//! so a writer that can fail (standard output, a file) never goes through it.
//!
//! It names nothing else of the crate.

use std::fmt::{Arguments, Write};

/// Appending formatted text to a `String`.
pub(crate) trait PushFmt {
    /// Append `args`.
    fn push_fmt(&mut self, args: Arguments<'_>);
    /// Append `args` and a newline.
    fn push_line(&mut self, args: Arguments<'_>);
}

impl PushFmt for String {
    fn push_fmt(&mut self, args: Arguments<'_>) {
        // `<String as fmt::Write>::write_str` always returns Ok: only a `Display` impl that
        // fails on its own could make this an error, and none in this crate does
        self.write_fmt(args)
            .expect("formatting into a String cannot fail");
    }

    fn push_line(&mut self, args: Arguments<'_>) {
        self.push_fmt(args);
        self.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::PushFmt;

    #[test]
    fn appends_text_and_lines() {
        let mut s = String::from("a");
        s.push_fmt(format_args!("{}-{}", 1, "b"));
        s.push_line(format_args!(" {:>3}", 7));
        s.push_line(format_args!("end"));
        assert_eq!(s, "a1-b   7\nend\n");
    }
}
