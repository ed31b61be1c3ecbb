// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's edge map for the C fuzz target (fuzz/fuzz_targets/cops.rs, docs/CHECK-C.md,
 * "Fuzzing the C"). A harness built for it (src/charness/build.rs, `build_fuzz`) compiles the
 * kernel's code (harness.o: mm/vma*.c, mm/interval_tree.c, the mm/rmap.c paths, with the glue
 * they are compiled with; rbtree.o: tools/lib/rbtree.c) with gcc's
 * -fsanitize-coverage=trace-pc, which calls __sanitizer_cov_trace_pc() at every basic block.
 * This file is compiled without it. When $RMAPCHECK_COVER_MAP names a file of
 * GLUE_COVER_MAP_SIZE bytes, each block's position relative to this function (the same in
 * every process, whatever the load address) is hashed, paired with the block before it as an
 * edge, and that edge's byte of the file, shared with the fuzz target, counted up to 255. The
 * fuzz target gives the bytes to libFuzzer as extra counters after each input. Written for
 * rmapcheck.
 */

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define GLUE_COVER_MAP_SIZE (1 << 16)

static unsigned char *glue_cover_map;
static uintptr_t glue_cover_prev;

void __sanitizer_cov_trace_pc(void);

__attribute__((constructor)) static void glue_cover_open(void)
{
	const char *path = getenv("RMAPCHECK_COVER_MAP");
	void *m;
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	m = mmap(NULL, GLUE_COVER_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		perror(path);
		exit(2);
	}
	glue_cover_map = m;
}

void __sanitizer_cov_trace_pc(void)
{
	uintptr_t pc, cur;
	unsigned char *c;

	if (!glue_cover_map)
		return;
	pc = (uintptr_t)__builtin_return_address(0) - (uintptr_t)&__sanitizer_cov_trace_pc;
	cur = (uintptr_t)((pc * 0x9E3779B97F4A7C15ull) >> 48);
	c = &glue_cover_map[(cur ^ glue_cover_prev) & (GLUE_COVER_MAP_SIZE - 1)];
	if (*c != 255)
		(*c)++;
	glue_cover_prev = cur >> 1;
}
