//! The cluster's hostfile: one `HOST:PORT` per line, the address process `i` listens on at line
//! `i` (counting only address lines), as timely's own `--hostfile` reads it; blank lines and lines
//! starting with `#` are skipped. Every process reads the same file.

use std::path::Path;

/// The first `processes` addresses of the hostfile text `text`.
pub fn parse(text: &str, processes: usize) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let port = line.rsplit_once(':').map(|(h, p)| (h, p.parse::<u16>()));
        match port {
            Some((h, Ok(_))) if !h.is_empty() => out.push(line.to_string()),
            _ => return Err(format!("line {}: `{line}` is not HOST:PORT", n + 1)),
        }
        if out.len() == processes {
            return Ok(out);
        }
    }
    Err(format!(
        "{} address(es) for {processes} processes",
        out.len()
    ))
}

/// The addresses of `processes` processes from the hostfile at `path`.
pub fn read(path: &Path, processes: usize) -> Result<Vec<String>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--hostfile {}: {e}", path.display()))?;
    parse(&text, processes).map_err(|e| format!("--hostfile {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn comments_and_blank_lines_are_skipped_and_extra_lines_ignored() {
        let t = "# cluster\n\n10.0.0.1:2101\n  host-b:2102  \nhost-c:2103\n";
        assert_eq!(parse(t, 2).unwrap(), vec!["10.0.0.1:2101", "host-b:2102"]);
    }

    #[test]
    fn too_few_or_malformed_lines_are_refused() {
        assert!(parse("a:1\n", 2)
            .unwrap_err()
            .contains("1 address(es) for 2"));
        assert!(parse("a:1\nb\n", 2).unwrap_err().contains("line 2"));
        assert!(parse(":1\n", 1).is_err());
        assert!(parse("a:port\n", 1).is_err());
    }
}
