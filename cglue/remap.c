// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness: mremap(2)'s moves (mm/mremap.c, which the harness cannot build),
 * paraphrased around the mm/vma.c functions they call. Every move is MREMAP_MAYMOVE |
 * MREMAP_FIXED to a destination rmapcheck's model chose (mremap_to()): the destination is
 * unmapped first and the source looked up again; a shrinking move then unmaps the source's
 * tail (shrink_vma() without dropping the lock) and moves the rest; move_vma() write-locks
 * the source, copy_vma_and_data() makes the copy (copy_vma()) and moves the page tables
 * (move_page_tables(), pages.c, under the rmap locks when copy_vma() asks for them), the
 * statistics count the new range (vrm_stat_account()), and then either unmap_source_vma()
 * unmaps the old range with its VM_ACCOUNT trick, or, for MREMAP_DONTUNMAP,
 * dontunmap_complete() leaves the source mapped and empty. Lengths and addresses are pages.
 *
 * Written for rmapcheck from the kernel's v7.3 mm/mremap.c; no kernel code is copied here.
 */

/*
 * unmap_source_vma(): the old range unmapped with VM_ACCOUNT cleared on the source first (the
 * copy was charged already), and set again on what is left of it on either side.
 */
static long glue_unmap_source(struct mm_struct *mm, struct vm_area_struct *vma,
			      unsigned long addr, unsigned long len)
{
	bool accountable = vma_test(vma, VMA_ACCOUNT_BIT);
	unsigned long vm_start = vma->vm_start, vm_end = vma->vm_end;
	VMA_ITERATOR(vmi, mm, pg(addr));
	long ret;

	if (accountable)
		vma_clear_flags(vma, VMA_ACCOUNT_BIT);
	ret = do_vmi_munmap(&vmi, mm, pg(addr), pg(len), NULL, false);
	if (ret || !accountable)
		return ret;
	if (vm_start < pg(addr)) {
		struct vm_area_struct *prev = vma_prev(&vmi);

		vma_start_write(prev);
		vma_set_flags(prev, VMA_ACCOUNT_BIT);
	}
	if (vm_end > pg(addr + len)) {
		struct vm_area_struct *next = vma_next(&vmi);

		vma_start_write(next);
		vma_set_flags(next, VMA_ACCOUNT_BIT);
	}
	return 0;
}

/*
 * dontunmap_complete(): the source keeps its range, loses VM_LOCKED, and when the whole of it
 * moved its anon_vma links go (its pages are the copy's now) and it becomes unfaulted: its
 * anonymous page offset, and a truly anonymous VMA's pgoff, go back to its start page.
 */
static void glue_dontunmap_complete(struct vm_area_struct *vma, unsigned long addr,
				    unsigned long len)
{
	vma_clear_flags_mask(vma, VMA_LOCKED_MASK);
	if (pg(addr) == vma->vm_start && pg(addr + len) == vma->vm_end) {
		const pgoff_t unfaulted = vma->vm_start >> PAGE_SHIFT;

		unlink_anon_vmas(vma);
		vma_set_anon_pgoff(vma, unfaulted);
		if (vma_is_anonymous(vma) && !vma->vm_file)
			vma_set_pgoff(vma, unfaulted);
	}
}

/*
 * move_vma() of [addr, addr + old_len), which lies in one VMA, to [new_addr, new_addr +
 * new_len) (new_len >= old_len), the destination already free.
 */
static long glue_move_vma(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
			  unsigned long new_len, unsigned long new_addr, bool dontunmap)
{
	struct vm_area_struct *vma, *new_vma;
	bool need_rmap_locks = false;

	vma = vma_lookup(mm, pg(addr));
	if (!vma || pg(addr + old_len) > vma->vm_end)
		return -EFAULT;
	vma_start_write(vma);
	new_vma = copy_vma(&vma, pg(new_addr), pg(new_len), linear_page_index(vma, pg(addr)),
			   __linear_anon_page_index(vma, pg(addr)), &need_rmap_locks, dontunmap);
	if (!new_vma)
		return -ENOMEM;
	{
		PAGETABLE_MOVE(pmc, vma, new_vma, pg(addr), pg(new_addr), pg(old_len));

		pmc.need_rmap_locks = need_rmap_locks;
		if (move_page_tables(&pmc) < pg(old_len))
			return -ENOMEM;
	}
	if (dontunmap)
		glue_dontunmap_complete(vma, addr, old_len);
	/* vrm_stat_account(): the new range counts before the source is unmapped */
	vm_stat_account(mm, vma->vm_flags, new_len);
	return dontunmap ? 0 : glue_unmap_source(mm, vma, addr, old_len);
}

/* mremap_to()'s MREMAP_FIXED step: the destination unmapped. */
static long glue_unmap_destination(struct mm_struct *mm, unsigned long new_addr,
				   unsigned long new_len)
{
	VMA_ITERATOR(vmi, mm, pg(new_addr));

	return do_vmi_munmap(&vmi, mm, pg(new_addr), pg(new_len), NULL, false);
}

/* Whether [a, a + al) and [b, b + bl) overlap (check_mremap_params()'s refusal). */
static bool glue_ranges_overlap(unsigned long a, unsigned long al, unsigned long b,
				unsigned long bl)
{
	return a < b + bl && b < a + al;
}

/* mremap(addr, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, new_addr), new_len >= old_len. */
static long call_mremap_move(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
			     unsigned long new_len, unsigned long new_addr)
{
	long ret = -EINVAL;

	glue_pages_allow(mm, addr, addr + old_len);
	glue_pages_allow(mm, new_addr, new_addr + new_len);
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	if (old_len && new_len >= old_len &&
	    !glue_ranges_overlap(addr, old_len, new_addr, new_len)) {
		ret = glue_unmap_destination(mm, new_addr, new_len);
		if (!ret)
			ret = glue_move_vma(mm, addr, old_len, new_len, new_addr, false);
	}
	mmap_write_unlock(mm);
	return ret;
}

/*
 * mremap(addr, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, new_addr) with new_len <
 * old_len: only [addr, addr + new_len) must lie in the VMA; the tail [addr + new_len, addr +
 * old_len) is unmapped (shrink_vma(), it may reach past the VMA), then the rest moves.
 */
static long call_mremap_move_shrink(struct mm_struct *mm, unsigned long addr,
				    unsigned long old_len, unsigned long new_len,
				    unsigned long new_addr)
{
	struct vm_area_struct *vma;
	long ret = -EINVAL;

	glue_pages_allow(mm, addr, addr + old_len);
	glue_pages_allow(mm, new_addr, new_addr + new_len);
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	if (!new_len || new_len >= old_len ||
	    glue_ranges_overlap(addr, old_len, new_addr, new_len))
		goto out;
	vma = vma_lookup(mm, pg(addr));
	if (!vma || pg(addr + new_len) > vma->vm_end) {
		ret = -EFAULT;
		goto out;
	}
	ret = glue_unmap_destination(mm, new_addr, new_len);
	if (ret)
		goto out;
	{
		VMA_ITERATOR(vmi, mm, pg(addr + new_len));

		ret = do_vmi_munmap(&vmi, mm, pg(addr + new_len), pg(old_len - new_len), NULL,
				    false);
	}
	if (!ret)
		ret = glue_move_vma(mm, addr, new_len, new_len, new_addr, false);
out:
	mmap_write_unlock(mm);
	return ret;
}

/* mremap(addr, len, len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, new_addr). */
static long call_mremap_dontunmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
				  unsigned long new_addr)
{
	struct vm_area_struct *vma;
	long ret = -EINVAL;

	glue_pages_allow(mm, addr, addr + len);
	glue_pages_allow(mm, new_addr, new_addr + len);
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	if (!len || glue_ranges_overlap(addr, len, new_addr, len))
		goto out;
	vma = vma_lookup(mm, pg(addr));
	if (!vma || pg(addr + len) > vma->vm_end) {
		ret = -EFAULT;
		goto out;
	}
	ret = glue_unmap_destination(mm, new_addr, len);
	if (!ret)
		ret = glue_move_vma(mm, addr, len, len, new_addr, true);
out:
	mmap_write_unlock(mm);
	return ret;
}

/* The move requests of glue_command(); false when w[0] is not one. */
static bool glue_remap_command(char **w, int n, long *ret)
{
	struct mm_struct *mm;
	int words;

	if (!strcmp(w[0], "mremap_move") || !strcmp(w[0], "mremap_move_shrink"))
		words = 6;
	else if (!strcmp(w[0], "mremap_dontunmap"))
		words = 5;
	else
		return false;
	mm = glue_request_mm(w, n, words);
	if (!mm) {
		*ret = LONG_MIN;
		return true;
	}
	if (!strcmp(w[0], "mremap_move"))
		*ret = call_mremap_move(mm, num(w[2]), num(w[3]), num(w[4]), num(w[5]));
	else if (!strcmp(w[0], "mremap_move_shrink"))
		*ret = call_mremap_move_shrink(mm, num(w[2]), num(w[3]), num(w[4]), num(w[5]));
	else
		*ret = call_mremap_dontunmap(mm, num(w[2]), num(w[3]), num(w[4]));
	return true;
}
