// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness, part 2b: one line of the protocol to one call. glue_command() reads
 * the words of a line, runs the call of calls.c (or of remap.c, contract.c, undo.c) it names,
 * checks that the call released every lock the system call released, and prints the line the
 * Rust side reads (`ok RET`, then the notes; `error ...` for a line it cannot read). Written for
 * rmapcheck; no kernel text in it.
 */

static void glue_dump(void);
static void glue_corrupt(const char *what, long index);
static bool glue_contract_command(char **w, int n, long *ret);
static bool glue_undo_command(char **w, int n, long *ret);
static bool glue_remap_command(char **w, int n, long *ret);

static long num(const char *s)
{
	return strcmp(s, "-") ? strtol(s, NULL, 10) : -1;
}

/* Locks still held when a call returns are violations (the system call released them). */
static void glue_check_released(void)
{
	int i;

	for (i = 0; i < glue_nlocks; i++) {
		if (glue_locks[i].writers || glue_locks[i].readers)
			glue_violation("%s still held when the call returned",
				       glue_class_names[glue_locks[i].cls]);
		glue_locks[i].writers = glue_locks[i].readers = 0;
	}
	glue_nlocks = 0;
	glue_nwlocked = 0;
}

static void glue_command(char **w, int n)
{
	struct mm_struct *mm = NULL;
	long ret;

#define NEED(k) do { if (n != (k)) { printf("error %s takes %d words\n", w[0], (k) - 1); return; } } while (0)
#define MM() do { mm = glue_enter(num(w[1])); if (!mm) { printf("error no mm %s\n", w[1]); return; } } while (0)
	if (!strcmp(w[0], "reset")) {
		glue_reset(n > 1 ? w[1] : "");
		printf("ok 0\n");
		return;
	}
	if (!strcmp(w[0], "dump")) {
		glue_dump();
		return;
	}
	if (!strcmp(w[0], "corrupt")) {
		NEED(3);
		glue_corrupt(w[1], num(w[2]));
		return;
	}
	if (!strcmp(w[0], "notes")) {
		long k;

		/* test hook: N warnings, as N WARN_ONs that fired would leave */
		NEED(2);
		for (k = 0; k < num(w[1]); k++)
			glue_warn("test-hook", (int)k, "notes");
		printf("ok 0\n");
		return;
	}
	glue_pages_begin_call();
	if (!strcmp(w[0], "mmap")) {
		NEED(8);
		MM();
		ret = call_mmap(mm, num(w[2]), num(w[3]), num(w[4]), num(w[5]), num(w[6]), num(w[7]));
	} else if (!strcmp(w[0], "munmap")) {
		NEED(4);
		MM();
		ret = call_munmap(mm, num(w[2]), num(w[3]));
	} else if (!strcmp(w[0], "mprotect")) {
		NEED(5);
		MM();
		ret = call_mprotect(mm, num(w[2]), num(w[3]), num(w[4]));
	} else if (!strcmp(w[0], "mremap_expand")) {
		NEED(4);
		MM();
		ret = call_mremap_expand(mm, num(w[2]), num(w[3]));
	} else if (!strcmp(w[0], "mremap_shrink")) {
		NEED(4);
		MM();
		ret = call_mremap_shrink(mm, num(w[2]), num(w[3]));
	} else if (!strcmp(w[0], "anon_fault")) {
		NEED(3);
		MM();
		ret = call_anon_fault(mm, num(w[2]));
	} else if (!strcmp(w[0], "file_fault")) {
		NEED(3);
		MM();
		ret = call_file_fault(mm, num(w[2]));
	} else if (!strcmp(w[0], "stack_fault")) {
		NEED(3);
		MM();
		ret = call_stack_fault(mm, num(w[2]));
	} else if (!strcmp(w[0], "shift_down")) {
		NEED(4);
		MM();
		ret = call_shift_down(mm, num(w[2]), num(w[3]));
	} else if (!strcmp(w[0], "fork")) {
		NEED(2);
		MM();
		ret = call_fork_copying(mm, -1);
	} else if (!strcmp(w[0], "exit")) {
		NEED(2);
		MM();
		ret = call_exit(mm);
	} else if (glue_remap_command(w, n, &ret) || glue_contract_command(w, n, &ret) ||
		   glue_undo_command(w, n, &ret)) {
		if (ret == LONG_MIN)
			return;
	} else {
		printf("error unknown command %s\n", w[0]);
		return;
	}
	glue_pages_end_call();
	glue_check_released();
	printf("ok %ld\n", ret);
#undef NEED
#undef MM
}
