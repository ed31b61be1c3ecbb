//! TOML parse errors of the project's input files (scenarios, scopes, proof obligations) as
//! `line:col: message`, so every bad input names its position.

/// Parse `text` as `T`; an error reads `line:col: message` (1-based).
pub fn parse<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| {
        let msg = e.message().to_string();
        match e.span() {
            Some(sp) => {
                let before = &text[..sp.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                format!("{line}:{col}: {msg}")
            }
            None => format!("1:1: {msg}"),
        }
    })
}
