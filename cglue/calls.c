// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness, part 2: the world (mms and files), reset, and the calls of the
 * protocol. Each call stands for one rmapcheck entry point; it takes the locks the system
 * call takes and calls the mm/vma.c (or mm/vma_exec.c, mm/rmap.c) functions the kernel's
 * caller calls, in our own words where the caller is in a file the harness cannot build
 * (named on each call). Addresses and lengths on the protocol are in pages. Written for
 * rmapcheck; no kernel text in it.
 */

#define GLUE_MAX_MMS 8
#define GLUE_MAX_FILES 9

static struct mm_struct *glue_mms[GLUE_MAX_MMS];
static int glue_nmms;

struct glue_file {
	struct file file;
	struct address_space mapping;
	struct file_operations fops;
	bool dev_zero;
};

static struct glue_file glue_files[GLUE_MAX_FILES];
static int glue_nfiles;

/* vm_ops of a regular file's VMA: a file VMA is not anonymous (vma_is_anonymous()) */
static const struct vm_operations_struct glue_file_vm_ops;

static int glue_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &glue_file_vm_ops;
	return 0;
}

/* /dev/zero's mmap (drivers/char/mem.c): a private mapping is anonymous; a shared one
 * would become shmem (shmem_zero_setup(), a stub here: the VMA keeps the /dev/zero file) */
static int glue_zero_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma_test(vma, VMA_SHARED_BIT))
		return shmem_zero_setup(vma);
	vma_set_anonymous(vma);
	return 0;
}

int glue_mmap_file(struct file *file, struct vm_area_struct *vma)
{
	return file->f_op->mmap(file, vma);
}

/*
 * A new mm: its maple tree is locked by the mmap_lock, as mm_init() sets it up
 * (MT_FLAGS_LOCK_EXTERN; without it the tree would take its own spinlock, which mm/vma.c
 * never releases). The tree is not in RCU mode: nothing reads it concurrently here.
 */
static struct mm_struct *glue_new_mm(void)
{
	struct mm_struct *mm = calloc(1, sizeof(*mm));

	if (!mm)
		glue_bug(__FILE__, __LINE__, "out of memory");
	mt_init_flags(&mm->mm_mt, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN);
	return mm;
}

static unsigned long pg(unsigned long page)
{
	return page << PAGE_SHIFT;
}

/* An mm's index on the protocol (-1 for none the harness made). */
static int glue_mm_index(const struct mm_struct *mm)
{
	int i;

	for (i = 0; i < glue_nmms; i++)
		if (glue_mms[i] == mm)
			return i;
	return -1;
}

/* Forget everything: free each VMA, chain and anon_vma as memory, without kernel logic. */
static void glue_reset(const char *files)
{
	int i;

	for (i = 0; i < glue_nmms; i++) {
		struct mm_struct *mm = glue_mms[i];
		struct vm_area_struct *vma;
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma)
			kmem_cache_free(vm_area_cachep, vma);
		mtree_destroy(&mm->mm_mt);
		free(mm);
	}
	glue_nmms = 0;
	glue_pages_reset();
	while (glue_nobjs > 0) {
		struct glue_obj *o = &glue_objs[--glue_nobjs];

		/*
		 * The anon_vma cache has a constructor and hands freed objects out again
		 * without running it (as SLAB_TYPESAFE_BY_RCU does): a freed anon_vma must be
		 * left as the constructor made it, which the kernel's put_anon_vma() path
		 * guarantees and this reset must too.
		 */
		if (o->cache == anon_vma_cachep) {
			struct anon_vma *av = o->ptr;

			av->rb_root = RB_ROOT_CACHED;
			atomic_set(&av->refcount, 0);
		}
		kmem_cache_free(o->cache, o->ptr);
	}
	glue_nlocks = 0;
	glue_nwlocked = 0;
	glue_nwarns = 0;
	glue_warns_over = 0;
	glue_nviolations = 0;
	glue_violations_over = 0;
	glue_mms[glue_nmms++] = glue_new_mm();
	glue_nfiles = 0;
	for (i = 0; files[i] && i < GLUE_MAX_FILES; i++) {
		struct glue_file *f = &glue_files[glue_nfiles++];

		memset(f, 0, sizeof(*f));
		f->dev_zero = files[i] == 'z';
		f->fops.mmap = f->dev_zero ? glue_zero_mmap : glue_file_mmap;
		f->file.f_op = &f->fops;
		f->file.f_mapping = &f->mapping;
		f->mapping.i_mmap = RB_ROOT_CACHED;
	}
}

static struct mm_struct *glue_enter(long mm)
{
	if (mm < 0 || mm >= glue_nmms)
		return NULL;
	__current.mm = glue_mms[mm];
	return glue_mms[mm];
}

static long num(const char *s);

/*
 * The mm of a request of `words` words whose second names it (the requests of contract.c,
 * remap.c and undo.c), entered; NULL after printing the error line for a wrong word count or
 * no such mm.
 */
static struct mm_struct *glue_request_mm(char **w, int n, int words)
{
	struct mm_struct *mm;

	if (n != words) {
		printf("error %s takes %d words\n", w[0], words - 1);
		return NULL;
	}
	mm = glue_enter(num(w[1]));
	if (!mm)
		printf("error no mm %s\n", w[1]);
	return mm;
}

/* do_mmap() (mm/mmap.c) for the flags rmapcheck's sys_mmap passes, then mmap_region(). */
static long call_mmap(struct mm_struct *mm, unsigned long start, unsigned long end,
		      long file, unsigned long pgoff, bool shared, bool growsdown)
{
	vm_flags_t flags = VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	struct file *f = NULL;
	long ret;

	if (file >= 0) {
		if (file >= glue_nfiles)
			return -EINVAL;
		f = &glue_files[file].file;
	}
	if (shared)
		flags |= VM_SHARED | VM_MAYSHARE;
	if (growsdown)
		flags |= VM_GROWSDOWN;
	/* MAP_FIXED over mapped pages zaps them (vms_clean_up_area()) */
	glue_pages_allow(mm, start, end);
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	ret = mmap_region(f, pg(start), pg(end - start), legacy_to_vma_flags(flags), pgoff, NULL);
	mmap_write_unlock(mm);
	return IS_ERR_VALUE(ret) ? ret : 0;
}

/* munmap(2): __vm_munmap() of mm/vma.c, which takes and drops the lock itself. */
static long call_munmap(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	glue_pages_allow(mm, start, end);
	return __vm_munmap(pg(start), pg(end - start), true);
}

/*
 * mprotect(2) over [start, end) inside one VMA: mprotect_fixup() (mm/mprotect.c) with its
 * VM_ACCOUNT rule, then vma_modify_flags(), the new flags under vma_start_write(), and the
 * statistics moved from the old flags to the new (vm_stat_account()).
 */
static long call_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end,
			  bool writable)
{
	struct vm_area_struct *vma, *prev;
	vma_flags_t oldflags, newflags;
	long ret = 0;
	VMA_ITERATOR(vmi, mm, pg(start));

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	vma = vma_find(&vmi, pg(end));
	if (!vma || vma->vm_start > pg(start) || vma->vm_end < pg(end)) {
		ret = -ENOMEM;
		goto out;
	}
	prev = vma_prev(&vmi);
	if (vma->vm_start < pg(start))
		prev = vma;
	vma_iter_set(&vmi, pg(start));
	oldflags = vma->flags;
	newflags = vma->flags;
	if (writable)
		vma_flags_set(&newflags, VMA_WRITE_BIT);
	else
		vma_flags_clear(&newflags, VMA_WRITE_BIT);
	if (vma_flags_same_pair(&vma->flags, &newflags))
		goto out;
	if (writable) {
		if (!vma_flags_test_any(&vma->flags, VMA_ACCOUNT_BIT, VMA_WRITE_BIT,
					VMA_HUGETLB_BIT, VMA_SHARED_BIT, VMA_NORESERVE_BIT))
			vma_flags_set(&newflags, VMA_ACCOUNT_BIT);
	} else if (vma_flags_test(&vma->flags, VMA_ACCOUNT_BIT) && vma_is_anonymous(vma) &&
		   !vma->anon_vma) {
		vma_flags_clear(&newflags, VMA_ACCOUNT_BIT);
	}
	vma = vma_modify_flags(&vmi, prev, vma, pg(start), pg(end), &newflags);
	if (IS_ERR(vma)) {
		ret = PTR_ERR(vma);
		goto out;
	}
	vma_start_write(vma);
	vma_flags_reset_once(vma, &newflags);
	/* the statistics move from the old flags' counters to the new ones' */
	vm_stat_account(mm, vma_flags_to_legacy(oldflags), -(long)(end - start));
	vm_stat_account(mm, vma_flags_to_legacy(newflags), end - start);
out:
	mmap_write_unlock(mm);
	return ret;
}

/*
 * mremap(2) growing in place (mm/mremap.c expand_vma_in_place()): vma_merge_extend(), and the
 * mm's statistics grow by the delta (vrm_stat_account()). Only where vrm_can_expand_in_place()
 * lets it: vma_expandable() refuses when anything is mapped in [vm_end, new end), and mremap
 * without MREMAP_MAYMOVE then fails with -ENOMEM, so vma_merge_extend() never runs over a
 * mapped range.
 */
static long call_mremap_expand(struct mm_struct *mm, unsigned long addr, unsigned long new_end)
{
	struct vm_area_struct *vma;
	unsigned long delta;
	long ret = 0;
	VMA_ITERATOR(vmi, mm, pg(addr));

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	vma = vma_lookup(mm, pg(addr));
	if (!vma || vma->vm_start != pg(addr) || pg(new_end) <= vma->vm_end) {
		ret = -EINVAL;
		goto out;
	}
	if (find_vma_intersection(mm, vma->vm_end, pg(new_end))) {
		ret = -ENOMEM;	/* !vma_expandable() */
		goto out;
	}
	vma_iter_set(&vmi, vma->vm_end);
	delta = pg(new_end) - vma->vm_end;
	vma = vma_merge_extend(&vmi, vma, delta);
	if (!vma)
		ret = -ENOMEM;
	else
		vm_stat_account(mm, vma->vm_flags, delta >> PAGE_SHIFT);	/* vrm_stat_account() */
out:
	mmap_write_unlock(mm);
	return ret;
}

/* mremap(2) shrinking in place (mm/mremap.c shrink_vma()): do_vmi_munmap() of the tail. */
static long call_mremap_shrink(struct mm_struct *mm, unsigned long addr, unsigned long new_end)
{
	struct vm_area_struct *vma;
	long ret;
	VMA_ITERATOR(vmi, mm, pg(new_end));

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	vma = vma_lookup(mm, pg(addr));
	if (!vma || vma->vm_start != pg(addr) || new_end <= addr ||
	    pg(new_end) >= vma->vm_end) {
		mmap_write_unlock(mm);
		return -EINVAL;
	}
	glue_pages_allow(mm, new_end, vma->vm_end >> PAGE_SHIFT);
	ret = do_vmi_munmap(&vmi, mm, pg(new_end), vma->vm_end - pg(new_end), NULL, false);
	mmap_write_unlock(mm);
	return ret;
}

/*
 * A write fault (mm/memory.c do_anonymous_page() and the COW paths): on a private mapping
 * vmf_anon_prepare() -> anon_vma_prepare() under the mmap read lock; a shared mapping's write
 * fault needs no anon_vma.
 */
static long call_anon_fault(struct mm_struct *mm, unsigned long page)
{
	struct vm_area_struct *vma;
	long ret = 0;

	glue_pages_allow(mm, page, page + 1);
	glue_lock(mm, GLUE_MMAP_LOCK, false);
	vma = vma_lookup(mm, pg(page));
	if (!vma)
		ret = -EFAULT;
	else if (!vma_test(vma, VMA_SHARED_BIT) && vma_test(vma, VMA_WRITE_BIT)) {
		/* a write fault on a read-only VMA is a SIGSEGV (access_error()) */
		ret = anon_vma_prepare(vma);
		if (!ret)
			glue_fault_anon(vma, page);
	}
	mmap_read_unlock(mm);
	return ret;
}

/* A read fault on a file page (do_read_fault()): no rmap change; the VMA must exist. */
static long call_file_fault(struct mm_struct *mm, unsigned long page)
{
	struct vm_area_struct *vma;

	glue_pages_allow(mm, page, page + 1);
	glue_lock(mm, GLUE_MMAP_LOCK, false);
	vma = vma_lookup(mm, pg(page));
	/* a private /dev/zero VMA maps the zero page, which is in no rmap */
	if (vma && vma->vm_file && !vma_is_anonymous(vma))
		glue_fault_file(vma, page);
	mmap_read_unlock(mm);
	return vma ? 0 : -EFAULT;
}

/*
 * A fault below a VM_GROWSDOWN VMA (mm/mmap.c expand_stack_locked(), under the mmap write
 * lock): expand_downwards() of mm/vma.c, then the page's fault under the read lock.
 */
static long call_stack_fault(struct mm_struct *mm, unsigned long page)
{
	struct vm_area_struct *vma;
	long ret;
	VMA_ITERATOR(vmi, mm, pg(page));

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	vma = vma_find(&vmi, TASK_SIZE);
	if (!vma || vma->vm_start <= pg(page)) {
		mmap_write_unlock(mm);
		return -EFAULT;
	}
	glue_pages_allow(mm, page, page + 1);
	ret = expand_downwards(vma, pg(page));
	mmap_write_downgrade(mm);
	if (!ret)
		ret = anon_vma_prepare(vma);
	if (!ret)
		glue_fault_anon(vma, page);
	mmap_read_unlock(mm);
	return ret;
}

/* exec's stack move (fs/exec.c setup_arg_pages()): relocate_vma_down() of mm/vma_exec.c. */
static long call_shift_down(struct mm_struct *mm, unsigned long addr, unsigned long shift)
{
	struct vm_area_struct *vma;
	long ret;

	glue_lock(mm, GLUE_MMAP_LOCK, true);
	vma = vma_lookup(mm, pg(addr));
	if (!vma || vma->vm_start != pg(addr)) {
		mmap_write_unlock(mm);
		return -EINVAL;
	}
	/*
	 * exec's caller guarantees a faulted stack: copy_strings() wrote the arguments into it
	 * before setup_arg_pages(), so it has an anon_vma (assert_sane_pgoff() in mm/vma.h would
	 * warn on one without). The harness refuses what exec never passes.
	 */
	if (!vma->anon_vma) {
		mmap_write_unlock(mm);
		return -EINVAL;
	}
	glue_pages_allow(mm, addr - shift, vma->vm_end >> PAGE_SHIFT);
	glue_pages_temp_stack(mm);
	ret = relocate_vma_down(vma, pg(shift));
	glue_pages_temp_stack(NULL);
	mmap_write_unlock(mm);
	return ret;
}

static void glue_fork_teardown(struct mm_struct *mm);

/*
 * fork(2): dup_mmap() (mm/mmap.c), one VMA at a time: vm_area_dup(), anon_vma_fork(), store
 * in the child's tree, and the file VMA right after its parent in i_mmap
 * (mapping_rmap_tree_insert_after()). With copied >= 0, dup_mmap() fails after copying that
 * many VMAs and its error path tears the child's copies down (undo.c). Returns 0, or the
 * error; the child's mm is kept either way.
 */
static long call_fork_copying(struct mm_struct *oldmm, long copied)
{
	struct mm_struct *mm;
	struct vm_area_struct *mpnt, *tmp;
	VMA_ITERATOR(vmi, oldmm, 0);
	long ret = 0, n = 0;

	if (glue_nmms == GLUE_MAX_MMS)
		return -ENOMEM;
	mm = glue_new_mm();
	glue_mms[glue_nmms] = mm;
	/* dup_mmap() starts the child from the parent's statistics */
	mm->total_vm = oldmm->total_vm;
	mm->data_vm = oldmm->data_vm;
	mm->exec_vm = oldmm->exec_vm;
	mm->stack_vm = oldmm->stack_vm;
	glue_pages_allow(mm, 0, 0);
	glue_lock(oldmm, GLUE_MMAP_LOCK, true);
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	for_each_vma(vmi, mpnt) {
		if (copied >= 0 && n++ == copied)
			break;
		vma_start_write(mpnt);
		tmp = vm_area_dup(mpnt);
		if (!tmp) {
			ret = -ENOMEM;
			break;
		}
		tmp->vm_mm = mm;
		if (anon_vma_fork(tmp, mpnt)) {
			ret = -ENOMEM;
			break;
		}
		vma_start_write(tmp);
		if (mtree_store_range(&mm->mm_mt, tmp->vm_start, tmp->vm_end - 1, tmp, GFP_KERNEL)) {
			ret = -ENOMEM;
			break;
		}
		vma_mark_attached(tmp);
		mm->map_count++;
		if (tmp->vm_file) {
			struct address_space *mapping = tmp->vm_file->f_mapping;

			i_mmap_lock_write(mapping);
			flush_dcache_mmap_lock(mapping);
			mapping_rmap_tree_insert_after(tmp, mpnt, mapping);
			flush_dcache_mmap_unlock(mapping);
			i_mmap_unlock_write(mapping);
		}
		/* copy_page_range() */
		glue_copy_ptes(tmp, mpnt);
	}
	if (copied >= 0 && !ret) {
		glue_fork_teardown(mm);
		ret = -ENOMEM;
	}
	mmap_write_unlock(mm);
	mmap_write_unlock(oldmm);
	glue_nmms++;
	return ret;
}

/*
 * The rmap unlink and the freeing of every VMA of mm, as exit_mmap() (mm/mmap.c) and
 * dup_mmap()'s error path (tear_down_vmas()) both do with free_pgtables() (mm/memory.c): each
 * VMA's anon rmap (unlink_anon_vmas()) and file rmap (unlink_file_vma_batch_*()) unlinked while
 * the tree still lists it, then each VMA removed (remove_vma()) and the tree emptied. Exit
 * write-locks each VMA first (start_write); the caller holds the mmap write lock.
 */
static void glue_free_vmas(struct mm_struct *mm, bool start_write)
{
	struct vm_area_struct *vma;
	struct unlink_vma_file_batch vb;
	VMA_ITERATOR(vmi, mm, 0);

	unlink_file_vma_batch_init(&vb);
	for_each_vma(vmi, vma) {
		if (start_write)
			vma_start_write(vma);
		unlink_anon_vmas(vma);
		unlink_file_vma_batch_add(&vb, vma);
	}
	unlink_file_vma_batch_final(&vb);
	vma_iter_set(&vmi, 0);
	for_each_vma(vmi, vma) {
		vma_mark_detached(vma);
		remove_vma(vma);
		mm->map_count--;
	}
	mtree_destroy(&mm->mm_mt);
}

/*
 * exit(2): exit_mmap(): the zap of every VMA (unmap_vmas()) under the mmap read lock, then
 * under the write lock the unlink and freeing of every VMA. rmapcheck's model keeps the mm
 * (empty) afterwards, and so does the harness.
 */
static long call_exit(struct mm_struct *mm)
{
	glue_pages_allow(mm, 0, 0);
	glue_lock(mm, GLUE_MMAP_LOCK, false);
	glue_zap(mm, 0, ~0UL);
	mmap_read_unlock(mm);
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	glue_free_vmas(mm, true);
	mmap_write_unlock(mm);
	return 0;
}
