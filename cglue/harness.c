// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness: mm/vma.c, mm/vma_init.c and mm/vma_exec.c of a kernel tree, with the
 * real rmap trees (mm/interval_tree.c on tools/lib/rbtree.c) and the real anon_vma paths
 * (mm/rmap.c), driven by a line protocol on standard input / output. The protocol is
 * described in docs/CDIFF.md. Written for rmapcheck; the kernel's code is compiled from the
 * tree, never copied here.
 *
 * The system-call level calls (mmap, munmap, mprotect, mremap, faults, fork, exit) live in
 * mm/mmap.c, mm/mprotect.c, mm/mremap.c and mm/memory.c, which cannot be built in userland;
 * calls.c paraphrases what each does around the vma.c functions it calls, by name.
 */

#include "shared.h"

#include "../../../mm/vma_init.c"
#include "../../../mm/vma_exec.c"
#include "../../../mm/vma.c"

#include "rmap_gen.c"
#include "glue.c"
/* generated: lock checks before the other tree-changing functions of mm/interval_tree.c */
#include "rmap_helpers.c"

int sysctl_max_map_count __read_mostly = DEFAULT_MAX_MAP_COUNT;
bool fail_prealloc;
unsigned long mmap_min_addr;
unsigned long dac_mmap_min_addr;
/* the kernel's default: 256 pages, wider than any address space rmapcheck explores */
unsigned long stack_guard_gap = 256UL << PAGE_SHIFT;
const struct vm_operations_struct vma_dummy_vm_ops;
struct anon_vma dummy_anon_vma;
struct task_struct __current;

struct task_struct *get_current(void)
{
	return &__current;
}

unsigned long rlimit(unsigned int limit)
{
	return (unsigned long)-1;
}

#include "calls.c"
#include "command.c"
#include "remap.c"
#include "contract.c"
#include "undo.c"
#include "dump.c"
#include "pages.c"
#include "checkpoint.c"

static int glue_words(char *line, char **w, int max)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(line, " \t\n", &save); t && n < max; t = strtok_r(NULL, " \t\n", &save))
		w[n++] = t;
	return n;
}

int main(void)
{
	char line[512];
	char *w[16];

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	maple_tree_init();
	vma_state_init();
	anon_vma_init();
	glue_reset("");
	printf("ready rmapcheck-cglue 1\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		int n = glue_words(line, w, 16);

		if (n == 0)
			continue;
		if (!strcmp(w[0], "quit"))
			break;
		glue_command(w, n);
		fflush(stdout);
	}
	return 0;
}
