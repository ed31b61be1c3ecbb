//! A parser for `/proc/PID/smaps`: each VMA's header line (range, permissions, offset, device,
//! inode, path) and its `Anonymous:` size, keeping the VMAs that meet an address range.

/// One VMA as smaps shows it (addresses and offset in bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KernelVma {
    pub start: u64,
    pub end: u64,
    /// `rw-p` and the like.
    pub perms: String,
    pub offset: u64,
    /// Device as `major << 32 | minor` (from `maj:min` in hex).
    pub dev: u64,
    pub inode: u64,
    pub path: String,
    pub anonymous_kb: u64,
    /// `VmFlags:` has `ac` (VM_ACCOUNT).
    pub account: bool,
}

fn hex(s: &str, line: &str) -> Result<u64, String> {
    u64::from_str_radix(s, 16).map_err(|_| format!("smaps: bad hex field {s:?} in {line:?}"))
}

/// Parse one header line: `start-end perms offset maj:min inode [path]`.
fn header(line: &str) -> Result<KernelVma, String> {
    let mut it = line.split_whitespace();
    let mut next = || {
        it.next()
            .ok_or_else(|| format!("smaps: short line {line:?}"))
    };
    let range = next()?;
    let (s, e) = range
        .split_once('-')
        .ok_or_else(|| format!("smaps: bad range in {line:?}"))?;
    let perms = next()?.to_string();
    let offset = hex(next()?, line)?;
    let (maj, min) = next()?
        .split_once(':')
        .ok_or_else(|| format!("smaps: bad device in {line:?}"))?;
    let inode = next()?
        .parse()
        .map_err(|_| format!("smaps: bad inode in {line:?}"))?;
    let path = it.collect::<Vec<_>>().join(" ");
    Ok(KernelVma {
        start: hex(s, line)?,
        end: hex(e, line)?,
        perms,
        offset,
        dev: hex(maj, line)? << 32 | hex(min, line)?,
        inode,
        path,
        anonymous_kb: 0,
        account: false,
    })
}

/// The VMAs of an smaps text that intersect `[lo, hi)`, in address order.
pub(crate) fn parse_smaps(text: &str, lo: u64, hi: u64) -> Result<Vec<KernelVma>, String> {
    let mut out: Vec<KernelVma> = Vec::new();
    let mut keep = false;
    for line in text.lines() {
        let Some(first) = line.split_whitespace().next() else {
            continue;
        };
        if first.ends_with(':') {
            if keep && first == "Anonymous:" {
                let kb = line
                    .split_whitespace()
                    .nth(1)
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| format!("smaps: bad Anonymous line {line:?}"))?;
                if let Some(v) = out.last_mut() {
                    v.anonymous_kb = kb;
                }
            }
            if keep && first == "VmFlags:" {
                if let Some(v) = out.last_mut() {
                    v.account = line.split_whitespace().skip(1).any(|f| f == "ac");
                }
            }
            continue;
        }
        let v = header(line)?;
        keep = v.start < hi && v.end > lo;
        if keep {
            out.push(v);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_headers_and_anonymous() {
        let text = "\
7e0000000000-7e0000002000 rw-p 00001000 fe:00 1234                       /tmp/x (deleted)
Size:                  8 kB
Anonymous:             4 kB
VmFlags: rd wr mr mw me ac
7e0000003000-7e0000004000 r--s 00000000 00:00 0 
Anonymous:             0 kB
7f0000000000-7f0000001000 rw-p 00000000 00:00 0 
Anonymous:             4 kB
";
        let v = parse_smaps(text, 0x7e00_0000_0000, 0x7e00_0001_0000).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].offset, 0x1000);
        assert_eq!(v[0].dev, 0xfe << 32);
        assert_eq!(v[0].inode, 1234);
        assert_eq!(v[0].path, "/tmp/x (deleted)");
        assert_eq!(v[0].anonymous_kb, 4);
        assert_eq!(v[1].perms, "r--s");
        assert_eq!(v[1].anonymous_kb, 0);
    }

    #[test]
    fn rejects_garbage() {
        let e = parse_smaps("zz-7e rw-p 0 0:0 0\n", 0, u64::MAX).unwrap_err();
        assert!(e.contains("bad hex field"), "{e}");
    }
}
