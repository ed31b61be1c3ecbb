// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness: the undo paths, reached by injecting the allocation failure that the
 * model's failing entry point takes as given (rmapcheck's models/v7.3-rc4/lib/undo.rmap):
 *
 * - munmap_abort: munmap(2) whose maple-tree clear fails after the gather
 *   (do_vmi_align_munmap()'s vma_iter_clear_gfp(); glue.h routes it through
 *   glue_fail_clear_gfp), so the gathered VMAs are reattached;
 * - mmap_fixed_fail: mmap(MAP_FIXED) over [start, end) failing after __mmap_setup() has
 *   cleaned up the old VMAs: the mapped file's mmap_prepare hook fails (a file of the
 *   harness's own that maps nothing), so __mmap_region() aborts the munmap with the page
 *   tables already cleared (vms_abort_munmap_vmas());
 * - fork_fail: dup_mmap() (mm/mmap.c) failing after it copied `copied` VMAs; the child's
 *   copied VMAs are torn down as the error path does (unmap_region() over them, then
 *   tear_down_vmas()), under both mmap write locks, and the child is left without VMAs.
 *
 * Written for rmapcheck from the kernel's v7.3 mm/vma.c and mm/mmap.c; no kernel code is
 * copied here.
 */

bool glue_fail_clear_gfp;

static long call_munmap_abort(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	long ret;

	glue_fail_clear_gfp = true;
	ret = __vm_munmap(pg(start), pg(end - start), true);
	/* a range with no VMA never reaches the clear */
	glue_fail_clear_gfp = false;
	return ret;
}

static int glue_failing_mmap_prepare(struct vm_area_desc *desc)
{
	return -ENOMEM;
}

static const struct file_operations glue_failing_fops = {
	.mmap_prepare = glue_failing_mmap_prepare,
};

static struct address_space glue_failing_mapping;
static struct file glue_failing_file = {
	.f_op = &glue_failing_fops,
	.f_mapping = &glue_failing_mapping,
};

/* A private writable MAP_FIXED mapping of a file whose mmap_prepare hook fails. */
static long call_mmap_fixed_fail(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	vm_flags_t flags = VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	long ret;

	glue_failing_mapping.i_mmap = RB_ROOT_CACHED;
	glue_pages_allow(mm, start, end);
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	ret = mmap_region(&glue_failing_file, pg(start), pg(end - start),
			  legacy_to_vma_flags(flags), start, NULL);
	mmap_write_unlock(mm);
	return IS_ERR_VALUE(ret) ? ret : 0;
}

/*
 * dup_mmap()'s error path for the child mm: unmap_region() over the copied VMAs (their ptes
 * zapped, then free_pgtables() unlinking each one's anon and file rmap), then
 * tear_down_vmas() freeing them; the caller holds both mmap write locks.
 */
static void glue_fork_teardown(struct mm_struct *mm)
{
	glue_zap(mm, 0, ~0UL);
	glue_free_vmas(mm, false);
}

/* The undo requests of glue_command(); false when w[0] is not one. */
static bool glue_undo_command(char **w, int n, long *ret)
{
	struct mm_struct *mm;
	int words;

	if (!strcmp(w[0], "munmap_abort") || !strcmp(w[0], "mmap_fixed_fail"))
		words = 4;
	else if (!strcmp(w[0], "fork_fail"))
		words = 3;
	else
		return false;
	mm = glue_request_mm(w, n, words);
	if (!mm) {
		*ret = LONG_MIN;
		return true;
	}
	if (!strcmp(w[0], "munmap_abort"))
		*ret = call_munmap_abort(mm, num(w[2]), num(w[3]));
	else if (!strcmp(w[0], "mmap_fixed_fail"))
		*ret = call_mmap_fixed_fail(mm, num(w[2]), num(w[3]));
	else
		*ret = call_fork_copying(mm, num(w[2]));
	return true;
}
