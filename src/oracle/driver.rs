//! The processes that stand for model mms on the running kernel. One session per call
//! sequence: the driver forks one child for mm#0; a model fork is a fork() of that mm's process
//! made with CLONE_PARENT, so every process is the driver's own child and is killed and reaped
//! by it. Each process owns a command pipe and a reply pipe (all made before the first fork), so
//! calls run strictly in the order the driver sends them; every wait for a reply is bounded.

use super::ops::KOp;
use super::PAGE;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Cmd {
    op: u64,
    a: u64,
    b: u64,
    c: u64,
    d: u64,
    e: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Reply {
    ret: i64,
    errno: i64,
}

const OP_MMAP: u64 = 1;
const OP_MUNMAP: u64 = 2;
const OP_MPROTECT: u64 = 3;
const OP_MREMAP: u64 = 4;
const OP_STORE: u64 = 5;
const OP_FORCE_WRITE: u64 = 6;
const OP_READ: u64 = 7;
const OP_FORK: u64 = 8;
const OP_MREMAP_MOVE: u64 = 9;

/// Pipe ends of one mm process.
struct Chan {
    /// Driver side.
    cmd_w: RawFd,
    reply_r: RawFd,
    /// Process side.
    cmd_r: RawFd,
    reply_w: RawFd,
}

/// The processes of one call sequence.
pub(crate) struct Session {
    chans: Vec<Chan>,
    /// Pid of each mm's process, once it exists; None after it was reaped.
    pids: Vec<Option<libc::pid_t>>,
    base: u64,
    timeout: Duration,
}

fn errno() -> i64 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0) as i64
}

fn close(fd: RawFd) {
    // SAFETY: closing a descriptor this module opened and owns.
    unsafe {
        libc::close(fd);
    }
}

fn write_all(fd: RawFd, bytes: &[u8]) -> bool {
    // SAFETY: `bytes` is valid for reads of its length. Pipe writes of at most PIPE_BUF bytes
    // are atomic, so one write either sends the whole message or fails.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    n == bytes.len() as isize
}

fn read_exact(fd: RawFd, buf: &mut [u8]) -> bool {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: the slice from `got` is valid for writes of its length.
        let n = unsafe { libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        if n <= 0 {
            if n < 0 && errno() == libc::EINTR as i64 {
                continue;
            }
            return false;
        }
        got += n as usize;
    }
    true
}

fn as_bytes<T: Copy>(v: &T) -> &[u8] {
    // SAFETY: Cmd and Reply are plain repr(C) integers without padding.
    unsafe { std::slice::from_raw_parts((v as *const T).cast(), std::mem::size_of::<T>()) }
}

fn as_bytes_mut<T: Copy>(v: &mut T) -> &mut [u8] {
    // SAFETY: as above; every bit pattern is a valid value of these structs.
    unsafe { std::slice::from_raw_parts_mut((v as *mut T).cast(), std::mem::size_of::<T>()) }
}

/// The loop of the process standing for mm `me`: read a command, make the system call, reply.
/// Never returns; it exits when its pipe closes and dies with the driver (PR_SET_PDEATHSIG).
fn serve(mut me: usize, cmd_r: &[RawFd], reply_w: &[RawFd], driver: libc::pid_t) -> ! {
    loop {
        let mut c = Cmd::default();
        if !read_exact(cmd_r[me], as_bytes_mut(&mut c)) {
            // SAFETY: leaving the child without running the parent's exit handlers.
            unsafe { libc::_exit(0) }
        }
        let mut r = Reply::default();
        // SAFETY: each arm makes one system call on the model's address range (or on the page
        // the model says is mapped); a failing call only sets errno.
        unsafe {
            match c.op {
                OP_MMAP => {
                    let p = libc::mmap(
                        c.a as *mut libc::c_void,
                        c.b as usize,
                        c.c as i32,
                        c.d as u32 as i32,
                        (c.d >> 32) as u32 as i32,
                        c.e as libc::off_t * PAGE as libc::off_t,
                    );
                    if p == libc::MAP_FAILED {
                        r = Reply {
                            ret: -1,
                            errno: errno(),
                        };
                    } else if p as u64 != c.a {
                        libc::munmap(p, c.b as usize);
                        r = Reply {
                            ret: -1,
                            errno: libc::EEXIST as i64,
                        };
                    }
                }
                OP_MUNMAP => {
                    if libc::munmap(c.a as *mut libc::c_void, c.b as usize) != 0 {
                        r = Reply {
                            ret: -1,
                            errno: errno(),
                        };
                    }
                }
                OP_MPROTECT => {
                    if libc::mprotect(c.a as *mut libc::c_void, c.b as usize, c.c as i32) != 0 {
                        r = Reply {
                            ret: -1,
                            errno: errno(),
                        };
                    }
                }
                OP_MREMAP => {
                    let p = libc::mremap(c.a as *mut libc::c_void, c.b as usize, c.c as usize, 0);
                    if p == libc::MAP_FAILED {
                        r = Reply {
                            ret: -1,
                            errno: errno(),
                        };
                    }
                }
                OP_MREMAP_MOVE => {
                    let mut flags = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED;
                    if c.e != 0 {
                        flags |= libc::MREMAP_DONTUNMAP;
                    }
                    let p = libc::mremap(
                        c.a as *mut libc::c_void,
                        c.b as usize,
                        c.c as usize,
                        flags,
                        c.d as *mut libc::c_void,
                    );
                    if p == libc::MAP_FAILED {
                        r = Reply {
                            ret: -1,
                            errno: errno(),
                        };
                    }
                }
                OP_STORE => std::ptr::write_volatile(c.a as *mut u8, 1),
                OP_READ => {
                    std::ptr::read_volatile(c.a as *const u8);
                }
                OP_FORCE_WRITE => {
                    let fd = libc::open(c"/proc/self/mem".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
                    let one = 1u8;
                    if fd < 0 {
                        r = Reply {
                            ret: -1,
                            errno: errno(),
                        };
                    } else {
                        if libc::pwrite(fd, (&one as *const u8).cast(), 1, c.a as libc::off_t) != 1
                        {
                            r = Reply {
                                ret: -1,
                                errno: errno(),
                            };
                        }
                        libc::close(fd);
                    }
                }
                OP_FORK => {
                    let flags = (libc::CLONE_PARENT | libc::SIGCHLD) as libc::c_ulong;
                    let pid = libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize);
                    if pid == 0 {
                        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                        if libc::getppid() != driver {
                            libc::_exit(1);
                        }
                        me = c.a as usize;
                        continue;
                    }
                    r = if pid < 0 {
                        Reply {
                            ret: -1,
                            errno: errno(),
                        }
                    } else {
                        Reply { ret: pid, errno: 0 }
                    };
                }
                _ => libc::_exit(2),
            }
        }
        if !write_all(reply_w[me], as_bytes(&r)) {
            // SAFETY: as above.
            unsafe { libc::_exit(0) }
        }
    }
}

impl Session {
    /// Start the process of mm#0, with pipes for `mms` processes in all. `base` is the address
    /// of model page 0.
    pub fn start(mms: usize, base: u64, timeout: Duration) -> Result<Session, String> {
        let mut s = Session {
            chans: Vec::new(),
            pids: vec![None; mms],
            base,
            timeout,
        };
        for _ in 0..mms {
            let mut c = [0; 2];
            let mut r = [0; 2];
            // SAFETY: pipe2 writes two descriptors into each array.
            let ok = unsafe {
                libc::pipe2(c.as_mut_ptr(), libc::O_CLOEXEC) == 0
                    && libc::pipe2(r.as_mut_ptr(), libc::O_CLOEXEC) == 0
            };
            if !ok {
                return Err(format!("pipe2: {}", std::io::Error::last_os_error()));
            }
            s.chans.push(Chan {
                cmd_w: c[1],
                reply_r: r[0],
                cmd_r: c[0],
                reply_w: r[1],
            });
        }
        let cmd_r: Vec<RawFd> = s.chans.iter().map(|c| c.cmd_r).collect();
        let reply_w: Vec<RawFd> = s.chans.iter().map(|c| c.reply_w).collect();
        // SAFETY: getpid has no preconditions.
        let driver = unsafe { libc::getpid() };
        // SAFETY: the child only makes system calls on memory it owns and exits with _exit.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(format!("fork: {}", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            // SAFETY: as above.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != driver {
                    libc::_exit(1);
                }
            }
            for c in &s.chans {
                close(c.cmd_w);
                close(c.reply_r);
            }
            serve(0, &cmd_r, &reply_w, driver);
        }
        s.pids[0] = Some(pid);
        for c in &mut s.chans {
            close(c.cmd_r);
            close(c.reply_w);
            c.cmd_r = -1;
            c.reply_w = -1;
        }
        Ok(s)
    }

    /// The pid of mm `mm`'s process.
    pub fn pid(&self, mm: usize) -> Option<libc::pid_t> {
        self.pids.get(mm).copied().flatten()
    }

    /// Run one operation; `fds[i]` is the descriptor of model file `i`. The outer error says
    /// the session broke (a process died or did not answer in time); the inner one that the
    /// kernel refused the system call (with errno).
    pub fn op(&mut self, op: &KOp, fds: &[RawFd]) -> Result<Result<(), String>, String> {
        let at = |p: u64| self.base + p * PAGE;
        let len = |n: u64| n * PAGE;
        let rw = (libc::PROT_READ | libc::PROT_WRITE) as u64;
        let (cmd, what) = match *op {
            KOp::Mmap {
                start,
                len: n,
                file,
                pgoff,
                shared,
                dev_zero,
                growsdown,
                fixed,
                ..
            } => {
                let mut flags = if fixed {
                    libc::MAP_FIXED
                } else {
                    libc::MAP_FIXED_NOREPLACE
                } | if growsdown { libc::MAP_GROWSDOWN } else { 0 }
                    | if shared {
                        libc::MAP_SHARED
                    } else {
                        libc::MAP_PRIVATE
                    };
                let fd = match file {
                    Some(f) => *fds
                        .get(f)
                        .ok_or_else(|| format!("no descriptor for file#{f}"))?,
                    None => {
                        flags |= libc::MAP_ANONYMOUS;
                        -1
                    }
                };
                let pgoff = if dev_zero {
                    self.base / PAGE + pgoff
                } else {
                    pgoff
                };
                let c = Cmd {
                    op: OP_MMAP,
                    a: at(start),
                    b: len(n),
                    c: rw,
                    d: (flags as u32 as u64) | ((fd as u32 as u64) << 32),
                    e: pgoff,
                };
                (c, "mmap")
            }
            KOp::Munmap { start, len: n, .. } => {
                let c = Cmd {
                    op: OP_MUNMAP,
                    a: at(start),
                    b: len(n),
                    ..Cmd::default()
                };
                (c, "munmap")
            }
            KOp::Mprotect {
                start,
                len: n,
                writable,
                ..
            } => {
                let prot = if writable { rw } else { libc::PROT_READ as u64 };
                let c = Cmd {
                    op: OP_MPROTECT,
                    a: at(start),
                    b: len(n),
                    c: prot,
                    ..Cmd::default()
                };
                (c, "mprotect")
            }
            KOp::Mremap {
                start,
                old_len,
                new_len,
                ..
            } => {
                let c = Cmd {
                    op: OP_MREMAP,
                    a: at(start),
                    b: len(old_len),
                    c: len(new_len),
                    ..Cmd::default()
                };
                (c, "mremap")
            }
            KOp::MremapMove {
                start,
                old_len,
                new_len,
                new_start,
                dontunmap,
                ..
            } => {
                let c = Cmd {
                    op: OP_MREMAP_MOVE,
                    a: at(start),
                    b: len(old_len),
                    c: len(new_len),
                    d: at(new_start),
                    e: u64::from(dontunmap),
                };
                (c, "mremap move")
            }
            KOp::WriteFault { page, store, .. } => {
                let op = if store { OP_STORE } else { OP_FORCE_WRITE };
                (
                    Cmd {
                        op,
                        a: at(page),
                        ..Cmd::default()
                    },
                    "write fault",
                )
            }
            KOp::ReadFault { page, .. } => (
                Cmd {
                    op: OP_READ,
                    a: at(page),
                    ..Cmd::default()
                },
                "read fault",
            ),
            KOp::Fork { child, .. } => {
                if child >= self.chans.len() {
                    return Err(format!("no pipes for mm#{child}"));
                }
                (
                    Cmd {
                        op: OP_FORK,
                        a: child as u64,
                        ..Cmd::default()
                    },
                    "fork",
                )
            }
        };
        let mm = op.mm();
        let r = self.ask(mm, &cmd, what)?;
        if r.ret < 0 {
            return Ok(Err(format!(
                "{what} failed in mm#{mm}: {}",
                std::io::Error::from_raw_os_error(r.errno as i32)
            )));
        }
        if let KOp::Fork { child, .. } = *op {
            self.pids[child] = Some(r.ret as libc::pid_t);
        }
        Ok(Ok(()))
    }

    /// Send a command to mm `mm`'s process and wait (bounded) for its reply.
    fn ask(&mut self, mm: usize, cmd: &Cmd, what: &str) -> Result<Reply, String> {
        let pid = self
            .pid(mm)
            .ok_or_else(|| format!("mm#{mm} has no process"))?;
        let ch = &self.chans[mm];
        if !write_all(ch.cmd_w, as_bytes(cmd)) {
            return Err(format!("{what}: cannot write to mm#{mm}'s process"));
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let mut p = libc::pollfd {
                fd: ch.reply_r,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut p, 1, 20) };
            if n > 0 {
                let mut r = Reply::default();
                if read_exact(ch.reply_r, as_bytes_mut(&mut r)) {
                    return Ok(r);
                }
                return Err(format!("{what}: mm#{mm}'s process closed its pipe"));
            }
            let mut status = 0;
            // SAFETY: waiting for our own child without blocking.
            if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
                self.pids[mm] = None;
                let how = if libc::WIFSIGNALED(status) {
                    format!("killed by signal {}", libc::WTERMSIG(status))
                } else {
                    format!("exited with status {}", libc::WEXITSTATUS(status))
                };
                return Err(format!("{what}: mm#{mm}'s process {how}"));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{what}: mm#{mm}'s process did not answer within {:?}",
                    self.timeout
                ));
            }
        }
    }
}

impl Drop for Session {
    /// Kill and reap every process of the session, then close the pipes.
    fn drop(&mut self) {
        for pid in self.pids.iter_mut().rev() {
            if let Some(p) = pid.take() {
                // SAFETY: `p` is our own unreaped child, so the pid cannot have been reused.
                unsafe {
                    libc::kill(p, libc::SIGKILL);
                    let mut st = 0;
                    while libc::waitpid(p, &mut st, 0) < 0 && errno() == libc::EINTR as i64 {}
                }
            }
        }
        for c in &self.chans {
            for fd in [c.cmd_w, c.reply_r, c.cmd_r, c.reply_w] {
                if fd >= 0 {
                    close(fd);
                }
            }
        }
    }
}
