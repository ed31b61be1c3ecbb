//! The TCP mesh between the processes of a cluster run, set up here rather than by timely's
//! own initialisation (which retries forever and prints to standard output): process `i`
//! connects to every process below it and accepts every process above it, each within the
//! connect timeout, and the two ends exchange a digest of the run (model, scope, workers per
//! process) so that processes started with different commands refuse each other instead of
//! exploring different state spaces. The sockets are then handed to timely.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The first bytes of a hello.
const MAGIC: u64 = u64::from_be_bytes(*b"rmapchk1");

/// How long to wait between two tries.
const RETRY: Duration = Duration::from_millis(100);

fn write_words(s: &mut TcpStream, words: &[u64]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(words.len() * 8);
    for w in words {
        buf.extend_from_slice(&w.to_be_bytes());
    }
    s.write_all(&buf)?;
    s.flush()
}

fn read_words<const N: usize>(s: &mut TcpStream) -> std::io::Result<[u64; N]> {
    let mut out = [0u64; N];
    for w in out.iter_mut() {
        let mut b = [0u8; 8];
        s.read_exact(&mut b)?;
        *w = u64::from_be_bytes(b);
    }
    Ok(out)
}

fn secs(d: Duration) -> String {
    format!("{}", d.as_secs_f64())
}

fn mismatch(j: usize, addr: &str) -> String {
    format!(
        "process {j} ({addr}) runs a different model, scope or --workers: every process must \
         be started with the same command but for --process"
    )
}

/// Connect to process `j` at `addr` before `deadline`, retrying; say hello.
fn dial(
    j: usize,
    addr: &str,
    me: usize,
    digest: u64,
    timeout: Duration,
    deadline: Instant,
) -> Result<TcpStream, String> {
    let mut last = String::from("no address");
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "could not reach process {j} at {addr} within the connect timeout of {}s ({last})",
                secs(timeout)
            ));
        }
        let addrs: Vec<_> = match addr.to_socket_addrs() {
            Ok(a) => a.collect(),
            Err(e) => {
                last = e.to_string();
                Vec::new()
            }
        };
        for a in addrs {
            match TcpStream::connect_timeout(&a, left.min(Duration::from_secs(5))) {
                Ok(mut s) => {
                    let io = |s: &mut TcpStream| -> std::io::Result<u64> {
                        s.set_nodelay(true)?;
                        s.set_read_timeout(Some(left.max(Duration::from_secs(1))))?;
                        write_words(s, &[MAGIC, me as u64, digest])?;
                        let [d] = read_words::<1>(s)?;
                        s.set_read_timeout(None)?;
                        Ok(d)
                    };
                    return match io(&mut s) {
                        Ok(d) if d == digest => Ok(s),
                        Ok(_) => Err(mismatch(j, addr)),
                        Err(e) => Err(format!("process {j} ({addr}) broke the handshake: {e}")),
                    };
                }
                Err(e) => last = e.to_string(),
            }
        }
        std::thread::sleep(RETRY);
    }
}

/// Accept every process above `me` on `listener` before `deadline`.
fn accept_all(
    listener: &TcpListener,
    addresses: &[String],
    me: usize,
    digest: u64,
    timeout: Duration,
    deadline: Instant,
) -> Result<Vec<Option<TcpStream>>, String> {
    let mut got: Vec<Option<TcpStream>> = (me + 1..addresses.len()).map(|_| None).collect();
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("listening socket: {e}"))?;
    while got.iter().any(Option::is_none) {
        match listener.accept() {
            Ok((mut s, _)) => {
                let hello = (|| -> std::io::Result<[u64; 3]> {
                    s.set_nonblocking(false)?;
                    s.set_nodelay(true)?;
                    s.set_read_timeout(Some(Duration::from_secs(5)))?;
                    read_words::<3>(&mut s)
                })();
                // a stray connection (not a peer's hello) is dropped
                let Ok([magic, j, d]) = hello else { continue };
                let j = j as usize;
                if magic != MAGIC || j <= me || j >= addresses.len() {
                    continue;
                }
                // the digest goes back either way, so that both ends can tell what is wrong
                let answer = write_words(&mut s, &[digest]);
                if d != digest {
                    return Err(mismatch(j, &addresses[j]));
                }
                answer
                    .and_then(|()| s.set_read_timeout(None))
                    .map_err(|e| {
                        format!("process {j} ({}) broke the handshake: {e}", addresses[j])
                    })?;
                got[j - me - 1] = Some(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = got
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.is_none())
                        .map(|(k, _)| format!("process {} ({})", me + 1 + k, addresses[me + 1 + k]))
                        .collect();
                    return Err(format!(
                        "{} did not connect within the connect timeout of {}s",
                        missing.join(", "),
                        secs(timeout)
                    ));
                }
                std::thread::sleep(RETRY / 2);
            }
            Err(e) => return Err(format!("accepting on {}: {e}", addresses[me])),
        }
    }
    Ok(got)
}

/// The sockets to every other process (`None` at `me`), in process order, or why the mesh could
/// not be set up within `timeout`.
pub(crate) fn mesh(
    addresses: &[String],
    me: usize,
    digest: u64,
    timeout: Duration,
) -> Result<Vec<Option<TcpStream>>, String> {
    let deadline = Instant::now() + timeout;
    let listener = TcpListener::bind(addresses[me].as_str())
        .map_err(|e| format!("cannot listen on {} (process {me}): {e}", addresses[me]))?;
    let below: Vec<(usize, String)> = addresses[..me].iter().cloned().enumerate().collect();
    let dialer = std::thread::spawn(move || {
        below
            .into_iter()
            .map(|(j, a)| dial(j, &a, me, digest, timeout, deadline).map(Some))
            .collect::<Result<Vec<_>, String>>()
    });
    let above = accept_all(&listener, addresses, me, digest, timeout, deadline);
    let mut out = dialer
        .join()
        .map_err(|_| "the connecting thread panicked".to_string())??;
    out.push(None);
    out.extend(above?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free_ports(n: usize) -> Vec<String> {
        let ls: Vec<TcpListener> = (0..n)
            .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        ls.iter()
            .map(|l| l.local_addr().unwrap().to_string())
            .collect()
    }

    #[test]
    fn three_processes_connect_and_a_different_digest_is_refused() {
        let addrs = free_ports(3);
        let t = Duration::from_secs(10);
        let hs: Vec<_> = (0..3)
            .map(|i| {
                let a = addrs.clone();
                std::thread::spawn(move || {
                    mesh(&a, i, 7, t).map(|v| v.iter().map(Option::is_some).collect::<Vec<_>>())
                })
            })
            .collect();
        let got: Vec<_> = hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect();
        assert_eq!(got[1], vec![true, false, true]);
        let addrs = free_ports(2);
        let a = addrs.clone();
        let h = std::thread::spawn(move || mesh(&a, 1, 8, t).map(|_| ()));
        let e0 = mesh(&addrs, 0, 7, t).map(|_| ()).unwrap_err();
        let e1 = h.join().unwrap().unwrap_err();
        assert!(
            e0.contains("different model") && e1.contains("different model"),
            "{e0} / {e1}"
        );
    }

    #[test]
    fn a_peer_that_never_connects_times_out() {
        let addrs = free_ports(2);
        let e = mesh(&addrs, 0, 1, Duration::from_millis(300)).unwrap_err();
        assert!(
            e.contains("process 1") && e.contains("did not connect"),
            "{e}"
        );
    }
}
