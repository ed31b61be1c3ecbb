//! TOML parse errors of the project's input files (scenarios, scopes, proof obligations) as
//! `line:col: message`, so every bad input names its position.
//!
//! It names nothing else of the crate.

/// `line:col` (1-based) of byte `offset` of `text`.
fn line_col(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{line}:{col}")
}

/// `line:col` (1-based) of the first occurrence of `needle` in `text`; `1:1` when it is not
/// there.
pub(crate) fn position_of(text: &str, needle: &str) -> String {
    text.find(needle)
        .map_or_else(|| "1:1".into(), |at| line_col(text, at))
}

/// Parse `text` as `T`; an error reads `line:col: message` (1-based).
pub fn parse<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| {
        let msg = e.message().to_string();
        match e.span() {
            Some(sp) => format!("{}: {msg}", line_col(text, sp.start)),
            None => format!("1:1: {msg}"),
        }
    })
}
