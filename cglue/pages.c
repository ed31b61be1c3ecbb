// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness, part 4: ghost pages. mm/memory.c and mm/mremap.c cannot be built in
 * userland, so there are no page tables here; this file keeps, per mm, what each page
 * address maps (a ghost pte table) and the folios mapped (anonymous: folio->mapping is the
 * anon_vma, folio->index the anonymous page offset at fault time; file: the address_space and
 * the file page offset). The calls change it where the kernel changes page tables (v7.3,
 * named on each function below), and the rmap walks from each folio run on the kernel's own
 * interval-tree iterators (mapping_rmap_tree_foreach(), anon_rmap_tree_foreach() of
 * mm/interval_tree.c), as rmap_walk_file() and rmap_walk_anon() of mm/rmap.c run them.
 *
 * The walker checkpoints that run these walks at the lock moments inside a call are
 * checkpoint.c's.
 *
 * Written for rmapcheck; no kernel text in it. Addresses are in pages.
 */

#define GLUE_MAX_FOLIOS 256
#define GLUE_MAX_PTES 256
/* walker checkpoints run per call at most (the bound the scope line prints) */
#define GLUE_MAX_CHECKPOINTS 64

struct glue_folio {
	bool anon;
	/* the anon_vma (anon) or the address_space (file), as folio->mapping names it */
	const void *mapping;
	unsigned long index;
	/* the anon_vma was freed while this folio pointed at it */
	bool anon_vma_freed;
};

struct glue_pte {
	struct mm_struct *mm;
	unsigned long addr;
	int folio;
};

static struct glue_folio glue_folios[GLUE_MAX_FOLIOS];
static int glue_nfolios;
static struct glue_pte glue_ptes[GLUE_MAX_PTES];
static int glue_nptes;

/* mapping-preserved: the ptes when the call began, and where the call may change them */
static struct glue_pte glue_ptes_before[GLUE_MAX_PTES];
static int glue_nptes_before;
struct glue_window {
	struct mm_struct *mm;
	unsigned long start, end;
};
#define GLUE_MAX_WINDOWS 8
static struct glue_window glue_windows[GLUE_MAX_WINDOWS];
static int glue_nwindows;

/* walker checkpoints of the current call */
static int glue_ncheckpoints;
static long glue_checkpoints_run, glue_checkpoints_over;
static bool glue_checkpoint_failed;
/* exec's stack move: the VMA is a temporary stack (vma_is_temporary_stack()), which the rmap
 * walks that must not miss a pte skip (invalid_migration_vma()), until it is moved */
static struct mm_struct *glue_temp_stack_mm;

void glue_pages_temp_stack(struct mm_struct *mm)
{
	glue_temp_stack_mm = mm;
}

void glue_pages_reset(void)
{
	glue_nfolios = 0;
	glue_nptes = 0;
	glue_nptes_before = 0;
	glue_nwindows = 0;
	glue_temp_stack_mm = NULL;
	glue_checkpoints_run = 0;
	glue_checkpoints_over = 0;
}

static int glue_pte_find(struct mm_struct *mm, unsigned long addr)
{
	int i;

	for (i = 0; i < glue_nptes; i++)
		if (glue_ptes[i].mm == mm && glue_ptes[i].addr == addr)
			return i;
	return -1;
}

static void glue_pte_set(struct mm_struct *mm, unsigned long addr, int folio)
{
	int i = glue_pte_find(mm, addr);

	if (i < 0) {
		if (glue_nptes == GLUE_MAX_PTES)
			glue_bug(__FILE__, __LINE__, "ghost pte table full");
		i = glue_nptes++;
	}
	glue_ptes[i] = (struct glue_pte){ .mm = mm, .addr = addr, .folio = folio };
}

static int glue_folio_new(bool anon, const void *mapping, unsigned long index)
{
	if (glue_nfolios == GLUE_MAX_FOLIOS)
		glue_bug(__FILE__, __LINE__, "ghost folio table full");
	glue_folios[glue_nfolios] = (struct glue_folio){
		.anon = anon, .mapping = mapping, .index = index,
	};
	return glue_nfolios++;
}

static int glue_mapcount(int folio)
{
	int i, n = 0;

	for (i = 0; i < glue_nptes; i++)
		n += glue_ptes[i].folio == folio;
	return n;
}

static unsigned long glue_vma_page(const struct vm_area_struct *vma)
{
	return vma->vm_start >> PAGE_SHIFT;
}

/*
 * A write fault on a private writable VMA that has its anon_vma (do_anonymous_page(),
 * do_cow_fault(), wp_page_copy() of mm/memory.c): the pte maps a new anonymous folio of
 * vma->anon_vma at the anonymous page offset of the address; wp_page_reuse() keeps the
 * present anonymous folio when this pte alone maps it, moved to vma->anon_vma
 * (folio_move_anon_rmap()).
 */
void glue_fault_anon(struct vm_area_struct *vma, unsigned long addr)
{
	int i = glue_pte_find(vma->vm_mm, addr);

	if (i >= 0 && glue_folios[glue_ptes[i].folio].anon &&
	    glue_mapcount(glue_ptes[i].folio) == 1) {
		struct glue_folio *f = &glue_folios[glue_ptes[i].folio];

		f->mapping = vma->anon_vma;
		f->anon_vma_freed = false;
		return;
	}
	glue_pte_set(vma->vm_mm, addr,
		     glue_folio_new(true, vma->anon_vma,
				    __linear_anon_page_index(vma, addr << PAGE_SHIFT)));
}

/* A read fault on a file page (do_read_fault()): the page-cache folio at the linear page
 * index. */
void glue_fault_file(struct vm_area_struct *vma, unsigned long addr)
{
	const void *mapping = vma->vm_file->f_mapping;
	unsigned long index = linear_page_index(vma, addr << PAGE_SHIFT);
	int f;

	for (f = 0; f < glue_nfolios; f++)
		if (!glue_folios[f].anon && glue_folios[f].mapping == mapping &&
		    glue_folios[f].index == index)
			break;
	if (f == glue_nfolios)
		f = glue_folio_new(false, mapping, index);
	glue_pte_set(vma->vm_mm, addr, f);
}

/* Drop the ptes of [start, end) of mm (the zap of unmap_vmas()). */
void glue_zap(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	int i, j = 0;

	for (i = 0; i < glue_nptes; i++)
		if (glue_ptes[i].mm != mm || glue_ptes[i].addr < start || glue_ptes[i].addr >= end)
			glue_ptes[j++] = glue_ptes[i];
	glue_nptes = j;
}

/*
 * unmap_vmas() (mm/memory.c): each VMA from unmap->first, found on unmap->mas up to
 * unmap->tree_end, has its ptes zapped over its part of [vma_start, vma_end). Called by
 * unmap_region() (munmap, the MAP_FIXED clean-up, mremap's unmaps) and by exit_mmap().
 */
void unmap_vmas(struct mmu_gather *tlb, struct unmap_desc *unmap)
{
	struct vm_area_struct *vma = unmap->first;

	while (vma) {
		unsigned long start = max(vma->vm_start, unmap->vma_start);
		unsigned long end = min(vma->vm_end, unmap->vma_end);

		if (start < end)
			glue_zap(vma->vm_mm, start >> PAGE_SHIFT, end >> PAGE_SHIFT);
		vma = mas_find(unmap->mas, unmap->tree_end - 1);
	}
}

/*
 * copy_page_range() from dup_mmap(): vma_needs_copy() copies the ptes when the parent VMA has
 * an anon_vma; the child maps the same folios at the same addresses.
 */
void glue_copy_ptes(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	int i, n = glue_nptes;

	if (!src->anon_vma)
		return;
	for (i = 0; i < n; i++) {
		struct glue_pte p = glue_ptes[i];

		if (p.mm == src->vm_mm && p.addr >= glue_vma_page(src) &&
		    p.addr < (src->vm_end >> PAGE_SHIFT))
			glue_pte_set(dst->vm_mm, p.addr, p.folio);
	}
}

/*
 * move_page_tables() (mm/mremap.c), pte by pte as move_ptes() does it (the PMD and PUD moves
 * need ranges far larger than the explored worlds): with pmc->need_rmap_locks the rmap locks
 * of the old VMA are held across the move (take_rmap_locks(), drop_rmap_locks()); the ptes of
 * [old_addr, old_addr + len_in) move, with their folios, to new_addr. Every page "moves".
 * Used by mremap's move (call_mremap_move()) and by exec's relocate_vma_down().
 */
unsigned long glue_move_page_tables(struct pagetable_move_control *pmc)
{
	struct vm_area_struct *vma = pmc->old;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long old = pmc->old_addr >> PAGE_SHIFT, new = pmc->new_addr >> PAGE_SHIFT;
	unsigned long len = pmc->len_in >> PAGE_SHIFT;
	int i;

	if (!pmc->len_in)
		return 0;
	if (pmc->need_rmap_locks) {
		if (vma->vm_file)
			i_mmap_lock_write(vma->vm_file->f_mapping);
		if (vma->anon_vma)
			anon_vma_lock_write(vma->anon_vma);
	}
	for (i = 0; i < glue_nptes; i++)
		if (glue_ptes[i].mm == mm && glue_ptes[i].addr >= old && glue_ptes[i].addr < old + len)
			glue_ptes[i].addr = glue_ptes[i].addr - old + new;
	if (pmc->need_rmap_locks) {
		if (vma->anon_vma)
			anon_vma_unlock_write(vma->anon_vma);
		if (vma->vm_file)
			i_mmap_unlock_write(vma->vm_file->f_mapping);
	}
	return pmc->len_in;
}

/* The anon_vma cache frees av: the folios that still name it now point at freed memory. */
void glue_pages_anon_vma_freed(const void *av)
{
	int f;

	for (f = 0; f < glue_nfolios; f++)
		if (glue_folios[f].anon && glue_folios[f].mapping == av)
			glue_folios[f].anon_vma_freed = true;
}

/* ---- mapping-preserved: the ptes change only where the call may change them ---------- */

void glue_pages_begin_call(void)
{
	memcpy(glue_ptes_before, glue_ptes, sizeof(glue_ptes[0]) * glue_nptes);
	glue_nptes_before = glue_nptes;
	glue_nwindows = 0;
	glue_ncheckpoints = 0;
	glue_checkpoint_failed = false;
	glue_readers_begin_call();
}

/* The call may change the ptes of [start, end) of mm (pages; end 0 is the whole mm). */
void glue_pages_allow(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	if (glue_nwindows < GLUE_MAX_WINDOWS)
		glue_windows[glue_nwindows++] = (struct glue_window){ mm, start, end ? end : ~0UL };
}

static bool glue_allowed(const struct glue_pte *p)
{
	int i;

	for (i = 0; i < glue_nwindows; i++)
		if (glue_windows[i].mm == p->mm && p->addr >= glue_windows[i].start &&
		    p->addr < glue_windows[i].end)
			return true;
	return false;
}

void glue_pages_end_call(void)
{
	int i, j;

	for (i = 0; i < glue_nptes_before; i++) {
		const struct glue_pte *b = &glue_ptes_before[i];

		if (glue_allowed(b))
			continue;
		j = glue_pte_find(b->mm, b->addr);
		if (j < 0 || glue_ptes[j].folio != b->folio)
			glue_violation("mapping-preserved: mm%d address %lu changed its pte, outside "
				       "what the call may change", glue_mm_index(b->mm), b->addr);
	}
	for (i = 0; i < glue_nptes; i++) {
		const struct glue_pte *p = &glue_ptes[i];
		bool was = false;

		for (j = 0; j < glue_nptes_before; j++)
			was |= glue_ptes_before[j].mm == p->mm && glue_ptes_before[j].addr == p->addr;
		if (!was && !glue_allowed(p))
			glue_violation("mapping-preserved: mm%d address %lu gained a pte, outside "
				       "what the call may change", glue_mm_index(p->mm), p->addr);
	}
	/* folios no pte maps are gone: drop them, renumbering the rest */
	for (i = 0, j = 0; i < glue_nfolios; i++) {
		int k;

		if (!glue_mapcount(i))
			continue;
		for (k = 0; k < glue_nptes; k++)
			if (glue_ptes[k].folio == i)
				glue_ptes[k].folio = j;
		glue_folios[j++] = glue_folios[i];
	}
	glue_nfolios = j;
}

/* ---- rmap walks on the kernel's iterators ------------------------------------------------ */

/* vma_address(): where vma maps page index of folio f, or -1 when outside it. */
static long glue_vma_address(const struct vm_area_struct *vma, const struct glue_folio *f)
{
	unsigned long base = f->anon ? vma_start_anon_pgoff(vma) : vma->vm_pgoff;
	unsigned long pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;

	if (f->index < base || f->index - base >= pages)
		return -1;
	return glue_vma_page(vma) + (f->index - base);
}

/*
 * The walk of folio f: calls found(vma, arg) for each VMA the kernel's iterator returns, as
 * rmap_walk_file() (the i_mmap tree of folio->mapping at folio->index) and rmap_walk_anon()
 * (the tree of the folio's anon_vma at its index) visit them. False when the walk cannot
 * start: the folio's anon_vma is freed.
 */
static bool glue_walk(const struct glue_folio *f, void (*found)(struct vm_area_struct *, void *),
		      void *arg)
{
	if (f->anon) {
		struct anon_vma *av = (struct anon_vma *)f->mapping;
		struct anon_vma_chain *avc;

		if (f->anon_vma_freed)
			return false;
		/* anon_rmap_tree_foreach() */
		for (avc = anon_rmap_tree_iter_first(av, f->index, f->index); avc;
		     avc = anon_rmap_tree_iter_next(avc, f->index, f->index))
			found(avc->vma, arg);
	} else {
		struct address_space *mapping = (struct address_space *)f->mapping;
		struct vm_area_struct *vma;

		/* mapping_rmap_tree_foreach() */
		for (vma = mapping_rmap_tree_iter_first(mapping, f->index, f->index); vma;
		     vma = mapping_rmap_tree_iter_next(vma, f->index, f->index))
			found(vma, arg);
	}
	return true;
}

/* ---- the dump -------------------------------------------------------------------------- */

static void glue_dump_walk_one(struct vm_area_struct *vma, void *arg)
{
	glue_ptr(vma);
}

static long glue_mapping_file(const void *mapping)
{
	int i;

	for (i = 0; i < glue_nfiles; i++)
		if (&glue_files[i].mapping == mapping)
			return i;
	return -2;
}

/*
 *   folio ID a OWNER INDEX FREED | folio ID f FILE INDEX 0
 *   pte MM ADDR FOLIO
 *   walk FOLIO VMA... | walk FOLIO freed
 *   checkpoints RUN OVER        (since the last reset)
 */
void glue_dump_pages(void)
{
	int i;

	for (i = 0; i < glue_nfolios; i++) {
		const struct glue_folio *f = &glue_folios[i];

		if (f->anon) {
			printf("folio %d a", i);
			glue_ptr(f->mapping);
		} else {
			printf("folio %d f %ld", i, glue_mapping_file(f->mapping));
		}
		printf(" %lu %d\n", f->index, f->anon_vma_freed);
	}
	for (i = 0; i < glue_nptes; i++)
		printf("pte %d %lu %d\n", glue_mm_index(glue_ptes[i].mm), glue_ptes[i].addr,
		       glue_ptes[i].folio);
	for (i = 0; i < glue_nfolios; i++) {
		printf("walk %d", i);
		if (!glue_walk(&glue_folios[i], glue_dump_walk_one, NULL))
			printf(" freed");
		printf("\n");
	}
	printf("checkpoints %ld %ld\n", glue_checkpoints_run, glue_checkpoints_over);
}
