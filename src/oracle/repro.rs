//! C reproducers of callers-mode counterexamples: a self-contained program (libc only) that
//! makes the trace's calls as system calls at the kdiff base address, one process per model
//! mm with pipes passing the turn, checks that every call succeeds and that the final layout in
//! /proc/self/maps is the one the baseline model predicts, and explains in its header what a
//! kernel carrying the patch is expected to do. Traces that need contract-mode calls, a
//! hand-made initial world or interleavings get the reason no reproducer can be made.

use super::layout::{model_layout, Backing, LVma};
use super::ops::{skip_reason, translate, KOp, Translated};
use crate::check::Invariant;
use crate::explore::op::{apply, CheckOpts};
use crate::lang::Program;
use crate::textbuf::PushFmt;
use crate::trace::production;
use crate::trace::Trace;
use crate::world::scenario::{Call, Scenario};

/// Why a call sequence cannot be made as system calls.
pub(crate) enum Unmakeable {
    /// The initial world is not one empty mm (the reason).
    World(String),
    /// Call `index` (0-based) has no system call (the reason).
    Call { index: usize, reason: String },
    /// There are no calls.
    NoCalls,
}

/// Why `calls` from `initial` cannot be made as system calls, or None.
pub(crate) fn unmakeable(initial: &Scenario, calls: &[Call]) -> Option<Unmakeable> {
    if !initial.mm.iter().all(|m| m.vma.is_empty()) || !initial.anon_vma.is_empty() {
        return Some(Unmakeable::World("the trace starts from a hand-made world with VMAs or anon_vmas; only traces that start from the scope's empty mm can be replayed with system calls".into()));
    }
    if initial.mm.len() != 1 {
        return Some(Unmakeable::World(
            "the trace starts with more than one mm".into(),
        ));
    }
    for (index, c) in calls.iter().enumerate() {
        if let Some(reason) = skip_reason(&c.func) {
            return Some(Unmakeable::Call { index, reason });
        }
    }
    calls.is_empty().then_some(Unmakeable::NoCalls)
}

/// Why a trace has no reproducer, or None.
fn refusal(t: &Trace) -> Option<String> {
    Some(match unmakeable(&t.initial, &t.calls)? {
        Unmakeable::World(r) => r,
        Unmakeable::Call { index, reason } => format!(
            "call {} ({}) has no system call: {reason}",
            index + 1,
            t.calls[index]
        ),
        Unmakeable::NoCalls => "the trace has no calls: its initial world already fails".into(),
    })
}

/// The C reproducer of `t`; `baseline` (named `base_name`) gives the layout an unpatched kernel
/// shows. Err says why no reproducer can be made.
pub fn reproducer(t: &Trace, baseline: &Program, base_name: &str) -> Result<String, String> {
    if let Some(r) = refusal(t) {
        return Err(format!("no reproducer: {r}"));
    }
    let mut head = String::new();
    header(&mut head, t, base_name);
    program(
        &t.initial,
        &t.calls,
        t.scope.pages,
        baseline,
        base_name,
        &head,
    )
}

/// The program making `calls` from the world of `initial` (one empty mm, checked by the
/// caller) in an address space of `pages`, under the comment `head`.
pub(crate) fn program(
    initial: &Scenario,
    calls: &[Call],
    pages: u64,
    baseline: &Program,
    base_name: &str,
    head: &str,
) -> Result<String, String> {
    let mut w = initial.build().map_err(|e| e.to_string())?.canonical();
    let mut ops = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        let op = match translate(&w, c)? {
            Translated::Op(o) => Some(o),
            Translated::Skip(_) => None,
        };
        let r = apply(baseline, &mut w, c, CheckOpts::default());
        if let Some(f) = r.failure {
            return Err(format!(
                "no reproducer: the baseline model {base_name} fails at call {} ({c}): {}",
                i + 1,
                f.invariant().map_or("", Invariant::name)
            ));
        }
        w = w.canonical();
        ops.push(op);
    }
    let names: Vec<String> = w.files.iter().map(|f| f.name.clone()).collect();
    let live: Vec<usize> = (0..w.mms.len()).filter(|&m| !w.mms[m].freed).collect();
    let finals: Vec<(usize, Vec<LVma>)> = live.iter().map(|&m| (m, model_layout(&w, m))).collect();
    let mut c = head.to_string();
    prelude(&mut c, w.mms.len(), &w, pages);
    // who runs each block: the owner of each call, then the final checks in mm order
    let mut owners: Vec<usize> = ops
        .iter()
        .map(|o| o.as_ref().map_or(0, |o| o.mm()))
        .collect();
    owners.extend(live.iter().copied());
    c.push_line(format_args!("int main(void)\n{{\n\tsetup();\n\tpass(0);"));
    for (i, (call, op)) in calls.iter().zip(&ops).enumerate() {
        let me = owners[i];
        let next = owners[i + 1];
        c.push_line(format_args!(
            "\n\t/* trace step {}: model call {call} */",
            i + 1
        ));
        c.push_line(format_args!("\tif (me == {me}) {{\n\t\twait_turn({me});"));
        match op {
            None => {
                c.push_line(format_args!("\t\t/* nothing to do on the kernel */"));
            }
            Some(op) => emit(&mut c, op, next),
        }
        if !matches!(op, Some(KOp::Fork { .. })) {
            c.push_line(format_args!("\t\tpass({next});"));
        }
        c.push_line(format_args!("\t}}"));
    }
    let n = calls.len();
    for (j, (m, lay)) in finals.iter().enumerate() {
        let next = owners.get(n + j + 1).map_or(-1, |&o| o as i64);
        c.push_line(format_args!(
            "\n\t/* the layout the model predicts for mm#{m} after the last call */"
        ));
        c.push_line(format_args!(
            "\tif (me == {m}) {{\n\t\tstatic const struct want w[] = {{"
        ));
        for v in lay {
            c.push_line(format_args!("\t\t\t/* {} */", v.describe(&names, false)));
            let f = match v.backing {
                Backing::File(f) => f as i64,
                _ => -1,
            };
            c.push_line(format_args!(
                "\t\t\t{{ {}, {}, {f}, {}, {}, {} }},",
                v.start, v.end, v.pgoff, v.writable as u8, v.shared as u8
            ));
        }
        if lay.is_empty() {
            c.push_line(format_args!("\t\t\t{{ 0, 0, -1, 0, 0, 0 }},"));
        }
        c.push_line(format_args!(
            "\t\t}};\n\t\twait_turn({m});\n\t\tcheck_layout(w, {});",
            lay.len()
        ));
        // the pages this process wrote that the model still maps anonymously: a forked child
        // must read the parent's data there (fork copies an anonymous VMA's ptes only when it
        // has an anon_vma), which tells apart a kernel whose VMA lost its anon_vma
        let anon: Vec<String> = w.mms[*m]
            .ptes
            .iter()
            .filter(|(_, f)| matches!(f, crate::world::Folio::Anon(_)))
            .map(|(a, _)| a.to_string())
            .collect();
        if !anon.is_empty() {
            c.push_line(format_args!(
                "\t\t{{\n\t\t\tstatic const unsigned long written[] = {{ {} }};\n\n\t\t\t\
                 check_fork_reads(written, {});\n\t\t}}",
                anon.join(", "),
                anon.len()
            ));
        }
        if next >= 0 {
            c.push_line(format_args!("\t\tpass({next});"));
        }
        c.push_line(format_args!("\t}}"));
    }
    c.push_line(format_args!("\treturn finish();\n}}"));
    Ok(c)
}

fn header(c: &mut String, t: &Trace, base_name: &str) {
    let f = t.failure.as_ref();
    let inv = t.invariant().map_or("", Invariant::name);
    c.push_line(format_args!("/*"));
    c.push_line(format_args!(
        " * Reproducer generated by `rmapcheck repro` for a counterexample of"
    ));
    c.push_line(format_args!(
        " *   model {} ({}), invariant `{inv}`.",
        t.model,
        t.scope.summary()
    ));
    let first = f.and_then(|f| f.violations.first());
    c.push_line(format_args!(
        " *\n * On a kernel WITH the patch under review the last call breaks `{inv}`"
    ));
    c.push_line(format_args!(
        " * ({}). What a production kernel does then:",
        first.map_or("", |v| production::consequence_of(v).name())
    ));
    if let Some(v) = first {
        wrap(c, &production::production(v));
    }
    if let Some(f) = f {
        if let Some(s) = f.step.and_then(|s| t.steps.get(s)) {
            c.push_line(format_args!(
                " * The model fails in {} at `{}`.",
                s.func,
                s.what.replace("*/", "* /")
            ));
        }
        for v in &f.violations {
            wrap(
                c,
                &format!("{}: {}", v.invariant, v.message.replace("*/", "* /")),
            );
        }
    }
    c.push_line(format_args!(
        " * Nothing visible in user space need go wrong. Which kernel shows it:"
    ));
    if let Some(v) = first {
        wrap(c, &production::which_config(v));
    }
    header_end(c, base_name, "patch");
}

/// The end of a reproducer's header comment: where the report shows, what a kernel without
/// `what` (the patch, the change) does, the page and mm numbering, how to build and run it.
pub(crate) fn header_end(c: &mut String, base_name: &str, what: &str) {
    c.push_line(format_args!(
        " * Look for its report in dmesg after running this program."
    ));
    c.push_line(format_args!(
        " *\n * On a kernel WITHOUT the {what} every call succeeds and the final layout is the"
    ));
    c.push_line(format_args!(
        " * one {base_name} predicts; the program prints it and exits 0. Each process then"
    ));
    c.push_line(format_args!(
        " * forks a child that reads the anonymous pages it wrote: the parent's data on every"
    ));
    c.push_line(format_args!(
        " * page, or a FAIL line (a VMA that lost its anon_vma: fork() copied no ptes)."
    ));
    c.push_line(format_args!(
        " * Model page p is the 4 KiB page at BASE + p * 4096; model mm#k is a process."
    ));
    c.push_line(format_args!(
        " * Build and run: cc -O2 -Wall -o repro repro.c && ./repro"
    ));
    c.push_line(format_args!(" */"));
}

/// Append `text` as comment lines of at most 80 columns.
pub(crate) fn wrap(c: &mut String, text: &str) {
    let mut line = String::from(" *");
    for w in text.split_whitespace() {
        if line.len() + 1 + w.len() > 80 {
            c.push_line(format_args!("{line}"));
            line = String::from(" *");
        }
        line.push(' ');
        line.push_str(w);
    }
    c.push_line(format_args!("{line}"));
}

fn emit(c: &mut String, op: &KOp, next: usize) {
    match *op {
        KOp::Mmap { start, len, file, pgoff, shared, growsdown, fixed, .. } => {
            let fd = file.map_or("-1".to_string(), |f| format!("fd[{f}]"));
            let flags = match (file, shared) {
                (None, _) if growsdown => "MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN",
                (None, _) => "MAP_PRIVATE | MAP_ANONYMOUS",
                (Some(_), true) => "MAP_SHARED",
                (Some(_), false) => "MAP_PRIVATE",
            };
            let fixed = if fixed { " | MAP_FIXED" } else { "" };
            c.push_line(format_args!("\t\tdo_mmap({start}, {len}, {fd}, {pgoff}, {flags}{fixed});"))
        }
        KOp::Munmap { start, len, .. } => c.push_line(format_args!("\t\tif (munmap(PAGE_AT({start}), {len} * PG))\n\t\t\tdie(\"munmap\");")),
        KOp::Mprotect { start, len, writable, .. } => {
            let prot = if writable { "PROT_READ | PROT_WRITE" } else { "PROT_READ" };
            c.push_line(format_args!("\t\tif (mprotect(PAGE_AT({start}), {len} * PG, {prot}))\n\t\t\tdie(\"mprotect\");"))
        }
        KOp::Mremap { start, old_len, new_len, .. } => c.push_line(format_args!("\t\tif (mremap(PAGE_AT({start}), {old_len} * PG, {new_len} * PG, 0) == MAP_FAILED)\n\t\t\tdie(\"mremap\");")),
        KOp::MremapMove { start, old_len, new_len, new_start, dontunmap, .. } => {
            let du = if dontunmap { " | MREMAP_DONTUNMAP" } else { "" };
            c.push_line(format_args!("\t\tif (mremap(PAGE_AT({start}), {old_len} * PG, {new_len} * PG,\n\t\t\t   MREMAP_MAYMOVE | MREMAP_FIXED{du}, PAGE_AT({new_start})) == MAP_FAILED)\n\t\t\tdie(\"mremap move\");"))
        }
        KOp::WriteFault { page, store: true, .. } => {
            c.push_line(format_args!("\t\t*(volatile char *)PAGE_AT({page}) = 1;\t/* write fault */"))
        }
        KOp::WriteFault { page, store: false, .. } => {
            c.push_line(format_args!("\t\tforce_write({page});\t/* write fault on a read-only private VMA */"))
        }
        KOp::ReadFault { page, .. } => {
            c.push_line(format_args!("\t\t(void)*(volatile char *)PAGE_AT({page});\t/* read fault */"))
        }
        KOp::Fork { child, .. } => c.push_line(format_args!("\t\tpid_t p = fork();\n\t\tif (p < 0)\n\t\t\tdie(\"fork\");\n\t\tif (p == 0)\n\t\t\tme = {child};\t/* the child is mm#{child} */\n\t\telse\n\t\t\tpass({next});")),
    }
}

fn prelude(c: &mut String, mms: usize, w: &crate::world::World, pages: u64) {
    let nf = w.files.len().max(1);
    let mut files = String::new();
    for (i, f) in w.files.iter().enumerate() {
        files.push_line(format_args!(
            "\tfd[{i}] = {};\t/* file#{i} ({}) */",
            if f.dev_zero {
                "open(\"/dev/zero\", O_RDWR)".to_string()
            } else {
                "temp_file()".to_string()
            },
            f.name
        ));
        files.push_line(format_args!(
            "\tif (fd[{i}] < 0)\n\t\tdie(\"open\");\n\tino[{i}] = inode_of(fd[{i}]);"
        ));
    }
    let size = 4 * pages + 16;
    c.push_fmt(format_args!(
        "{}",
        PRELUDE
            .replace("@MMS@", &mms.to_string())
            .replace("@NFILES@", &nf.to_string())
            .replace("@PAGES@", &pages.to_string())
            .replace("@SIZE@", &size.to_string())
            .replace("@FILES@", &files)
    ));
}

const PRELUDE: &str = r#"
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define HELPER static __attribute__((unused))
#define BASE 0x7e0000000000UL	/* model page 0 (as rmapcheck kdiff) */
#define PG 4096UL
#define PAGES @PAGES@UL	/* the model's address space, in pages */
#define PAGE_AT(p) ((void *)(BASE + (unsigned long)(p) * PG))
#define NMM @MMS@	/* model mms, one process each */

struct want {
	unsigned long start, end;	/* pages */
	int file;			/* model file index, -1: anonymous */
	unsigned long pgoff;
	int writable, shared;
};

static int me;			/* the model mm this process stands for */
static int turn[NMM][2];	/* a byte in turn[k] lets mm#k's process make its next call */
static int fd[@NFILES@];
static unsigned long ino[@NFILES@];
static int bad;

HELPER void die(const char *what)
{
	fprintf(stderr, "mm#%d: %s: %s\n", me, what, strerror(errno));
	exit(1);
}

HELPER void wait_turn(int k)
{
	char b;

	if (read(turn[k][0], &b, 1) != 1)
		die("read turn");
}

HELPER void pass(int k)
{
	if (write(turn[k][1], "t", 1) != 1)
		die("write turn");
}

HELPER void do_mmap(unsigned long start, unsigned long len, int f, unsigned long pgoff, int flags)
{
	/* MAP_FIXED replaces what the range overlaps; otherwise the range must be free */
	void *p = mmap(PAGE_AT(start), len * PG, PROT_READ | PROT_WRITE,
		       (flags & MAP_FIXED) ? flags : flags | MAP_FIXED_NOREPLACE, f,
		       f < 0 ? 0 : (off_t)(pgoff * PG));

	if (p == MAP_FAILED)
		die("mmap");
	if (p != PAGE_AT(start)) {
		errno = EEXIST;
		die("mmap (MAP_FIXED_NOREPLACE not honoured)");
	}
}

/* A write through /proc/self/mem breaks COW like a write fault, also where PROT_WRITE is off. */
HELPER void force_write(unsigned long page)
{
	char one = 1;
	int m = open("/proc/self/mem", O_RDWR);

	if (m < 0 || pwrite(m, &one, 1, (off_t)(BASE + page * PG)) != 1)
		die("write /proc/self/mem");
	close(m);
}

HELPER int temp_file(void)
{
	char path[] = "/tmp/rmapcheck-repro-XXXXXX";
	int f = mkstemp(path);

	if (f < 0)
		return -1;
	unlink(path);
	if (ftruncate(f, @SIZE@ * PG))
		return -1;
	return f;
}

/* The inode /proc/self/maps shows for mappings of f. */
HELPER unsigned long inode_of(int f)
{
	char line[512];
	unsigned long s, e, off, inode = 0;
	void *p = mmap(NULL, PG, PROT_READ, MAP_PRIVATE, f, 0);
	FILE *maps = fopen("/proc/self/maps", "r");

	if (p == MAP_FAILED || !maps)
		die("probe mapping");
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %lu", &s, &e, &off, &inode) == 4 &&
		    s == (unsigned long)p)
			break;
	fclose(maps);
	munmap(p, PG);
	return inode;
}

HELPER void setup(void)
{
	int k;

	for (k = 0; k < NMM; k++)
		if (pipe(turn[k]))
			die("pipe");
@FILES@	alarm(10);	/* never hang: a process that waits too long dies */
}

/* Compare this process's VMAs in the model's range with w[0..n). */
HELPER void check_layout(const struct want *w, int n)
{
	char line[512], perms[8];
	unsigned long s, e, off, inode;
	int i = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %lu", &s, &e, perms, &off, &inode) != 5)
			continue;
		if (e <= BASE || s >= BASE + PAGES * PG)
			continue;
		s = (s - BASE) / PG;
		e = (e - BASE) / PG;
		printf("mm#%d: kernel VMA [%lu, %lu) %s offset %lu inode %lu\n", me, s, e, perms,
		       off / PG, inode);
		if (i >= n || w[i].start != s || w[i].end != e ||
		    (perms[1] == 'w') != w[i].writable || (perms[3] == 's') != w[i].shared ||
		    inode != (w[i].file < 0 ? 0 : ino[w[i].file]) ||
		    (w[i].file >= 0 && off / PG != w[i].pgoff)) {
			if (i < n)
				printf("mm#%d:   the model's VMA %d is [%lu, %lu) %s%s file %d pgoff %lu\n",
				       me, i, w[i].start, w[i].end, w[i].writable ? "rw" : "ro",
				       w[i].shared ? " shared" : "", w[i].file, w[i].pgoff);
			else
				printf("mm#%d:   the model has no VMA %d\n", me, i);
			bad = 1;
		}
		i++;
	}
	fclose(maps);
	if (i != n) {
		printf("mm#%d: %d VMAs, the model predicts %d\n", me, i, n);
		bad = 1;
	}
	fflush(stdout);
}

/*
 * A forked child reads pages[0..n), each written by this process (1) and,
 * the model says, still mapped by an anonymous folio: fork() copies an
 * anonymous VMA's ptes only when the VMA has an anon_vma (vma_needs_copy()),
 * so on a kernel whose VMA lost its anon_vma the child reads zeros.
 */
HELPER void check_fork_reads(const unsigned long *pages, int n)
{
	int i, st, zeros = 0;
	pid_t p;

	fflush(stdout);
	p = fork();
	if (p < 0)
		die("fork");
	if (p == 0) {
		for (i = 0; i < n; i++) {
			char v = *(volatile char *)PAGE_AT(pages[i]);

			printf("mm#%d: a forked child reads page %lu: %s\n", me, pages[i],
			       v ? "the parent's data" : "zeros");
			zeros += !v;
		}
		fflush(stdout);
		_exit(zeros ? 1 : 0);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("mm#%d:   the model predicts the parent's data on every\n", me);
		printf("mm#%d:   page written\n", me);
		bad = 1;
	}
	fflush(stdout);
}

/* Reap this process's children; mm#0 reports. */
HELPER int finish(void)
{
	int st;

	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	if (me == 0)
		printf(bad ? "FAIL: the kernel's layout or data is not the model's\n"
			   : "OK: every call succeeded and the layout and data are the model's\n");
	return bad;
}

"#;
