// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness, part 5: walker checkpoints. At every acquire and release of an rmap
 * lock (i_mmap_rwsem, the flush_dcache lock, the anon_vma root rwsem), of the mmap lock (and
 * its downgrade) and just before every vma_start_write(), the glue runs, on the world as it is
 * at that moment, every walker of the model's kinds (models/v7.3-rc4/lib/walkers.rmap) that
 * could run then, i.e. that does not wait for a lock this call holds:
 *
 * - file, uprobe (rmap_walk_file() of mm/rmap.c, build_map_info() of kernel/events/uprobes.c:
 *   the i_mmap tree under i_mmap_rwsem for read): the walk of every mapped file folio, when
 *   the call does not hold its mapping's i_mmap_rwsem. Uprobe's walk is the file walk (same
 *   lock, same iterator, same query), so one walk stands for both;
 * - flush (flush_dcache_folio() on the architectures that define flush_dcache_mmap_lock():
 *   the i_mmap tree under that lock alone): the same walk, when the call does not hold the
 *   mapping's flush_dcache lock, even with i_mmap_rwsem held;
 * - anon (rmap_walk_anon(): the anon_vma tree under the root's rwsem for read): the walk of
 *   every mapped anonymous folio, when the call does not hold its root's rwsem;
 *   each walk must find every pte of its folio (`walker-complete`), and every tree a walker
 *   could descend then (its lock free) must be in order with right rb_subtree_last on the
 *   objects' current keys (`tree-order`, `augment`);
 * - fault, madv (a write fault under lock_vma_under_rcu() of mm/mmap_lock.c, MADV_DONTNEED's
 *   per-VMA path in mm/madvise.c): a reader that takes a VMA's read lock needs only that the
 *   VMA is attached and not write-locked, whatever the mmap lock; vma_start_write() waits for
 *   it. So every VMA its mm's maple tree lists and the call has not write-locked must keep the
 *   bounds (vm_start, vm_end, vm_pgoff) it had at the last moment a reader could take it
 *   (`vma-lock-stable`, the model's rule, src/world/conc.rs).
 *
 * The first failure of a call is kept as a violation naming the kernel function and line of
 * the lock operation. Written for rmapcheck; no kernel text in it.
 */

struct glue_seek {
	const struct glue_folio *f;
	const struct glue_pte *p;
	bool hit;
};

static void glue_seek_one(struct vm_area_struct *vma, void *arg)
{
	struct glue_seek *s = arg;

	if (vma->vm_mm == s->p->mm && glue_vma_address(vma, s->f) == (long)s->p->addr)
		s->hit = true;
}

/*
 * The walker of folio f that could run now, or NULL when every walker of it would wait for a
 * lock the call holds: "file" (rmap_walk_file(), uprobe's walk) when i_mmap_rwsem is free,
 * else "flush_dcache" when the flush_dcache lock is free; "anon" when the root rwsem is free.
 */
static const char *glue_walker_free(const struct glue_folio *f)
{
	if (f->anon) {
		if (f->anon_vma_freed ||
		    glue_held(((struct anon_vma *)f->mapping)->root, GLUE_ANON_RWSEM, false))
			return NULL;
		return "anon";
	}
	if (!glue_held(f->mapping, GLUE_I_MMAP_RWSEM, false))
		return "file";
	if (!glue_held(f->mapping, GLUE_FLUSH_DCACHE, false))
		return "flush_dcache";
	return NULL;
}

/* In-order starts non-decreasing and every rb_subtree_last right, on current keys; the max
 * last of the subtree, or 0 for an empty one. */
struct glue_keyed {
	bool anon;
	unsigned long prev_start;
	bool any;
	const char *bad;
};

static unsigned long glue_tree_check(const struct rb_node *n, struct glue_keyed *k)
{
	unsigned long start, last, sub, m;

	if (!n || k->bad)
		return 0;
	if (k->anon) {
		const struct anon_vma_chain *avc = rb_entry(n, struct anon_vma_chain, rb);

		start = vma_start_anon_pgoff(avc->vma);
		last = vma_last_anon_pgoff(avc->vma);
		sub = avc->rb_subtree_last;
	} else {
		const struct vm_area_struct *vma = rb_entry(n, struct vm_area_struct, shared.rb);

		start = vma_start_pgoff(vma);
		last = vma_last_pgoff(vma);
		sub = vma->shared.rb_subtree_last;
	}
	m = last;
	if (n->rb_left)
		m = max(m, glue_tree_check(n->rb_left, k));
	if (k->any && start < k->prev_start && !k->bad)
		k->bad = "tree-order";
	k->prev_start = start;
	k->any = true;
	if (n->rb_right)
		m = max(m, glue_tree_check(n->rb_right, k));
	if (!k->bad && m != sub)
		k->bad = "augment";
	return m;
}

static const char *glue_short_file(const char *file)
{
	const char *s = strstr(file, "mm/");

	return s ? s : file;
}

/* ---- per-VMA-lock readers (fault, madv): vma-lock-stable --------------------------------- */

#define GLUE_MAX_SNAPS 256

/* A VMA's bounds at the last moment a per-VMA reader could take it. */
struct glue_vma_snap {
	struct vm_area_struct *vma;
	unsigned long start, end, pgoff;
	/* its write lock just ended (mmap_write_unlock, downgrade): take its bounds afresh */
	bool retake;
	bool seen;
};

static struct glue_vma_snap glue_snaps[GLUE_MAX_SNAPS];
static int glue_nsnaps;
static bool glue_readers_failed;

static struct glue_vma_snap *glue_snap_find(const struct vm_area_struct *vma)
{
	int i;

	for (i = 0; i < glue_nsnaps; i++)
		if (glue_snaps[i].vma == vma)
			return &glue_snaps[i];
	return NULL;
}

static void glue_snap_take(struct glue_vma_snap *s, struct vm_area_struct *vma)
{
	*s = (struct glue_vma_snap){ .vma = vma, .start = vma->vm_start >> PAGE_SHIFT,
				     .end = vma->vm_end >> PAGE_SHIFT, .pgoff = vma->vm_pgoff,
				     .seen = true };
}

/* The write locks of these VMAs ended: a reader may take them with their current bounds. */
void glue_readers_unlocked(struct vm_area_struct *vma)
{
	struct glue_vma_snap *s = glue_snap_find(vma);

	if (s)
		s->retake = true;
}

/* The VMA was freed: its address may be the next VMA's, which no reader has taken yet. */
void glue_readers_freed(struct vm_area_struct *vma)
{
	struct glue_vma_snap *s = glue_snap_find(vma);

	if (s)
		*s = glue_snaps[--glue_nsnaps];
}

/*
 * Check every attached VMA the call has not write-locked against its bounds at the last
 * moment a reader could take it, then take the bounds of every attached VMA; a VMA no maple
 * tree lists any more is forgotten (a reader can no longer find it). With check false only
 * the bounds are taken (the call's start). False when the check failed.
 */
static bool glue_readers(bool check, const char *func, const char *file, int line,
			 const char *event)
{
	int i, j;

	for (i = 0; i < glue_nsnaps; i++)
		glue_snaps[i].seen = false;
	for (i = 0; i < glue_nmms; i++) {
		struct vm_area_struct *vma;
		VMA_ITERATOR(vmi, glue_mms[i], 0);

		for_each_vma(vmi, vma) {
			struct glue_vma_snap *s = glue_snap_find(vma);
			unsigned long start = vma->vm_start >> PAGE_SHIFT;
			unsigned long end = vma->vm_end >> PAGE_SHIFT;

			if (!s) {
				if (glue_nsnaps == GLUE_MAX_SNAPS)
					glue_bug(__FILE__, __LINE__, "VMA snapshot table full");
				s = &glue_snaps[glue_nsnaps++];
			} else if (check && !s->retake && !glue_vma_write_locked(vma) &&
				   (s->start != start || s->end != end || s->pgoff != vma->vm_pgoff)) {
				glue_violation("vma-lock-stable at %s (%s:%d, %s): mm%d's VMA [%lu,%lu) "
					       "pgoff %lu is now [%lu,%lu) pgoff %lu, not write-locked: "
					       "a fault or MADV_DONTNEED holding it under "
					       "lock_vma_under_rcu() sees it move", func,
					       glue_short_file(file),
					       line, event, i, s->start, s->end, s->pgoff, start, end,
					       vma->vm_pgoff);
				return false;
			}
			glue_snap_take(s, vma);
		}
	}
	for (i = 0, j = 0; i < glue_nsnaps; i++)
		if (glue_snaps[i].seen)
			glue_snaps[j++] = glue_snaps[i];
	glue_nsnaps = j;
	return true;
}

void glue_readers_begin_call(void)
{
	glue_nsnaps = 0;
	glue_readers_failed = false;
	glue_readers(false, NULL, NULL, 0, NULL);
}

/* ---- the checkpoint ---------------------------------------------------------------------- */

void glue_checkpoint(const char *func, const char *file, int line, const char *event)
{
	int i;

	if (glue_checkpoint_failed && glue_readers_failed)
		return;
	if (glue_ncheckpoints >= GLUE_MAX_CHECKPOINTS) {
		glue_checkpoints_over++;
		return;
	}
	glue_ncheckpoints++;
	glue_checkpoints_run++;
	for (i = 0; i < glue_nptes && !glue_checkpoint_failed; i++) {
		const struct glue_pte *p = &glue_ptes[i];
		const struct glue_folio *f = &glue_folios[p->folio];
		struct glue_seek s = { .f = f, .p = p };
		const char *walker = glue_walker_free(f);

		if (p->mm == glue_temp_stack_mm || !walker)
			continue;
		glue_walk(f, glue_seek_one, &s);
		if (s.hit)
			continue;
		glue_checkpoint_failed = true;
		glue_violation("walker-complete at %s (%s:%d, %s): the %s walk of folio %s index %lu "
			       "misses its pte at mm%d address %lu", func, glue_short_file(file), line,
			       event, walker, f->anon ? "anon" : "file", f->index,
			       glue_mm_index(p->mm), p->addr);
	}
	for (i = 0; i < glue_nfiles && !glue_checkpoint_failed; i++) {
		const struct address_space *mapping = &glue_files[i].mapping;
		struct glue_keyed k = { .anon = false };

		/* a file walk or a flush_dcache walk could descend it */
		if (glue_held(mapping, GLUE_I_MMAP_RWSEM, false) &&
		    glue_held(mapping, GLUE_FLUSH_DCACHE, false))
			continue;
		glue_tree_check(mapping->i_mmap.rb_root.rb_node, &k);
		if (k.bad) {
			glue_checkpoint_failed = true;
			glue_violation("%s at %s (%s:%d, %s): file#%d's i_mmap, its %s free, is out "
				       "of %s on its VMAs' current keys", k.bad, func,
				       glue_short_file(file), line, event, i,
				       glue_held(mapping, GLUE_I_MMAP_RWSEM, false) ?
				       "flush_dcache lock" : "lock",
				       strcmp(k.bad, "augment") ? "order" : "its rb_subtree_last");
		}
	}
	for (i = 0; i < glue_nobjs && !glue_checkpoint_failed; i++) {
		struct anon_vma *av = glue_objs[i].ptr;
		struct glue_keyed k = { .anon = true };

		if (glue_objs[i].cache != anon_vma_cachep ||
		    glue_held(av->root, GLUE_ANON_RWSEM, false))
			continue;
		glue_tree_check(av->rb_root.rb_root.rb_node, &k);
		if (k.bad) {
			glue_checkpoint_failed = true;
			glue_violation("%s at %s (%s:%d, %s): an anon_vma's tree, its lock free, is out "
				       "of %s on its VMAs' current keys", k.bad, func,
				       glue_short_file(file), line, event,
				       strcmp(k.bad, "augment") ? "order" : "its rb_subtree_last");
		}
	}
	/* kept apart from the walks' failure, so that each kind's first failure is reported */
	if (!glue_readers_failed && !glue_readers(true, func, file, line, event))
		glue_readers_failed = true;
}
