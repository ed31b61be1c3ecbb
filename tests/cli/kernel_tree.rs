//! The kernel tree the C-in-the-loop tests run on (`cdiff`, `check --kernel`): from
//! `RMAPCHECK_KERNEL_SRC`, else from the cache of scripts/fetch-kernel.sh
//! (`$RMAPCHECK_KERNEL_CACHE` or `$HOME/.cache/rmapcheck/kernel`, file `current`). Without one,
//! a test fails when `CI` is set and otherwise prints a SKIPPED line.

use std::path::PathBuf;

pub fn tree() -> Option<PathBuf> {
    let from_env = std::env::var_os("RMAPCHECK_KERNEL_SRC").map(PathBuf::from);
    let cached = || {
        let cache = std::env::var_os("RMAPCHECK_KERNEL_CACHE")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/rmapcheck/kernel"))
            })?;
        let p = std::fs::read_to_string(cache.join("current")).ok()?;
        Some(PathBuf::from(p.trim()))
    };
    match from_env.or_else(cached) {
        Some(t) if t.join("mm/vma.c").is_file() => Some(t),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but no kernel tree was found: run scripts/fetch-kernel.sh and set \
                 RMAPCHECK_KERNEL_SRC"
            );
            eprintln!(
                "SKIPPED: no kernel tree (set RMAPCHECK_KERNEL_SRC or run scripts/fetch-kernel.sh)"
            );
            None
        }
    }
}
