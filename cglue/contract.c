// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness: the contract calls. mm/vma.c is compiled into the harness, so its
 * static functions can be called directly: __split_vma(), vma_shrink() and commit_merge(),
 * each under the mmap write lock, with the arguments rmapcheck's contract entry points offer
 * (its entry-point table holds the preconditions; docs/CHECK-C.md, "Contract calls"). Each
 * request names the VMA by its start page, as the model names it by its object.
 *
 * A call outside the function's own preconditions (the VM_WARN_ONs it states, the page range
 * strictly inside) is refused with -EINVAL before anything changes: such a call is a bad call
 * of the harness, not a finding.
 *
 * Written for rmapcheck from the kernel's v7.3 mm/vma.c; no kernel code is copied here.
 */

/* The VMA that starts at page `start` of mm, or NULL. */
static struct vm_area_struct *contract_vma(struct mm_struct *mm, unsigned long start)
{
	struct vm_area_struct *vma = vma_lookup(mm, pg(start));

	return vma && vma->vm_start == pg(start) ? vma : NULL;
}

static bool contract_strictly_inside(struct vm_area_struct *vma, unsigned long page)
{
	return pg(page) > vma->vm_start && pg(page) < vma->vm_end;
}

/* __split_vma() at page addr, the new VMA below addr when new_below (split_vma()'s callers). */
static long call_contract_split(struct mm_struct *mm, unsigned long start, unsigned long addr,
				int new_below)
{
	struct vm_area_struct *vma;
	long ret = -EINVAL;
	VMA_ITERATOR(vmi, mm, pg(start));

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	vma = contract_vma(mm, start);
	if (vma && contract_strictly_inside(vma, addr))
		ret = __split_vma(&vmi, vma, pg(addr), new_below);
	mmap_write_unlock(mm);
	return ret;
}

/* vma_shrink() giving up [end, vm_end): vm_start and both page offsets stay. */
static long call_contract_shrink(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *vma;
	long ret = -EINVAL;
	VMA_ITERATOR(vmi, mm, pg(start));

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	vma = contract_vma(mm, start);
	if (vma && contract_strictly_inside(vma, end))
		ret = vma_shrink(&vmi, vma, pg(end));
	mmap_write_unlock(mm);
	return ret;
}

/*
 * Whether pgoff may be given to vma at its current start: assert_sane_pgoff() (mm/vma.h)
 * warns when a VMA that is truly anonymous (no file, no anon_vma yet) gets a pgoff other than
 * its start page, so no caller does that.
 */
static bool contract_sane_pgoff(struct vm_area_struct *vma, unsigned long pgoff)
{
	if (vma->vm_file || vma->anon_vma)
		return true;
	return pgoff == vma->vm_start >> PAGE_SHIFT;
}

/*
 * commit_merge() with a vma_merge_struct set up as vma_merge_existing_range() sets it up for
 * a boundary move, and as the model's contract_adjust_next / contract_adjust_middle do:
 * - next: middle becomes [middle->vm_start, end) at pgoff and next's start moves down to end
 *   (__adjust_next_start, next the target);
 * - not next: prev becomes [prev->vm_start, end) at pgoff and middle's start moves up to end
 *   (__adjust_middle_start, prev the target).
 * The VMA whose start stays keeps its anonymous page offset, except one with no file, whose
 * two offsets are one. Both VMAs are write-locked first, as the merge code does. A tree
 * generation may refuse a pgoff for the kept VMA (glue_kept_pgoff_allowed(), generated from
 * src/charness/generation.rs: 7.2 has one page offset, so a VMA with an anon_vma keeps its own).
 */
static long call_contract_adjust(struct mm_struct *mm, unsigned long start, unsigned long end,
				 unsigned long pgoff, bool next)
{
	struct vma_merge_struct vmg = {};
	struct vm_area_struct *middle, *other, *kept;
	long ret = -EINVAL;
	VMA_ITERATOR(vmi, mm, pg(start));

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	middle = contract_vma(mm, start);
	if (!middle || !contract_strictly_inside(middle, end))
		goto out;
	if (next) {
		other = vma_lookup(mm, middle->vm_end);
		if (!other || other->vm_start != middle->vm_end)
			goto out;
	} else {
		other = middle->vm_start ? vma_lookup(mm, middle->vm_start - 1) : NULL;
		if (!other || other->vm_end != middle->vm_start)
			goto out;
	}
	/* the VMA that keeps its start and takes pgoff: middle when next moves, else prev */
	kept = next ? middle : other;
	if (!contract_sane_pgoff(kept, pgoff) || !glue_kept_pgoff_allowed(kept, pgoff))
		goto out;
	/* init_multi_vma_prep()'s VM_WARN_ON: two anon_vmas cannot become one */
	if (middle->anon_vma && other->anon_vma && middle->anon_vma != other->anon_vma)
		goto out;
	vmg.mm = mm;
	vmg.vmi = &vmi;
	vmg.middle = middle;
	vmg.start = kept->vm_start;
	vmg.end = pg(end);
	vmg.pgoff = pgoff;
	glue_vmg_set_anon_pgoff(&vmg, kept->vm_file ? vma_start_anon_pgoff(kept) : pgoff);
	vmg.vm_flags = middle->vm_flags;
	vmg.file = middle->vm_file;
	vmg.anon_vma = middle->anon_vma;
	if (next) {
		vmg.next = other;
		vmg.__adjust_next_start = true;
	} else {
		vmg.prev = other;
		vmg.__adjust_middle_start = true;
	}
	vmg.target = other;
	vma_iter_set(&vmi, vmg.start);
	vma_start_write(middle);
	vma_start_write(other);
	ret = commit_merge(&vmg);
out:
	mmap_write_unlock(mm);
	return ret;
}

/* The contract requests of glue_command(); false when w[0] is not one. */
static bool glue_contract_command(char **w, int n, long *ret)
{
	struct mm_struct *mm;
	int words;

	if (!strcmp(w[0], "contract_split") || !strcmp(w[0], "contract_adjust_next") ||
	    !strcmp(w[0], "contract_adjust_middle"))
		words = 5;
	else if (!strcmp(w[0], "contract_shrink"))
		words = 4;
	else
		return false;
	mm = glue_request_mm(w, n, words);
	if (!mm) {
		*ret = LONG_MIN;
		return true;
	}
	if (!strcmp(w[0], "contract_split"))
		*ret = call_contract_split(mm, num(w[2]), num(w[3]), num(w[4]));
	else if (!strcmp(w[0], "contract_shrink"))
		*ret = call_contract_shrink(mm, num(w[2]), num(w[3]));
	else
		*ret = call_contract_adjust(mm, num(w[2]), num(w[3]), num(w[4]),
					    !strcmp(w[0], "contract_adjust_next"));
	return true;
}
