// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness, part 1: the recording glue behind glue.h (locks, WARN/BUG, the
 * checked tree wrappers, whose checks are in treecheck.c, the anon_vma / anon_vma_chain
 * registry) and the raw dump of the world. Included by harness.c after mm/vma.c and the
 * generated rmap_gen.c. Written for rmapcheck; no kernel text in it.
 */

#include <stdarg.h>

#define GLUE_MAX_LOCKS 256
#define GLUE_MAX_OBJS 4096
#define GLUE_MAX_NOTES 64
#define GLUE_NOTE_LEN 320

struct glue_lock_rec {
	const void *obj;
	enum glue_lock_class cls;
	int writers;
	int readers;
};

static struct glue_lock_rec glue_locks[GLUE_MAX_LOCKS];
static int glue_nlocks;

/* Notes kept for the dump: WARNs and lock violations, in order. Those past GLUE_MAX_NOTES are
 * counted, never dropped silently: the dump then ends with an `overflow` line naming the limit,
 * which rmapcheck refuses as a harness error. */
static char glue_warns[GLUE_MAX_NOTES][GLUE_NOTE_LEN];
static int glue_nwarns;
static int glue_warns_over;
static char glue_violations[GLUE_MAX_NOTES][GLUE_NOTE_LEN];
static int glue_nviolations;
static int glue_violations_over;

/* VMAs vma_start_write() was called on since the last mmap_lock release of their mm. */
static struct vm_area_struct *glue_wlocked[GLUE_MAX_OBJS];
static int glue_nwlocked;

static const char *const glue_class_names[] = {
	[GLUE_MMAP_LOCK] = "mmap_lock",
	[GLUE_I_MMAP_RWSEM] = "i_mmap_rwsem",
	[GLUE_FLUSH_DCACHE] = "flush_dcache",
	[GLUE_ANON_RWSEM] = "anon_vma_rwsem",
};

void glue_warn(const char *file, int line, const char *cond)
{
	if (glue_nwarns == GLUE_MAX_NOTES) {
		glue_warns_over++;
		return;
	}
	snprintf(glue_warns[glue_nwarns++], GLUE_NOTE_LEN, "%s:%d %s", file, line, cond);
}

void glue_bug(const char *file, int line, const char *cond)
{
	printf("bug %s:%d %s\n", file, line, cond);
	fflush(stdout);
	_exit(70);
}

void glue_violation(const char *fmt, ...)
{
	va_list ap;

	if (glue_nviolations == GLUE_MAX_NOTES) {
		glue_violations_over++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(glue_violations[glue_nviolations++], GLUE_NOTE_LEN, fmt, ap);
	va_end(ap);
}

static struct glue_lock_rec *glue_lock_find(const void *obj, enum glue_lock_class cls, bool add)
{
	int i;

	for (i = 0; i < glue_nlocks; i++)
		if (glue_locks[i].obj == obj && glue_locks[i].cls == cls)
			return &glue_locks[i];
	if (!add)
		return NULL;
	if (glue_nlocks == GLUE_MAX_LOCKS)
		glue_bug(__FILE__, __LINE__, "lock table full");
	glue_locks[glue_nlocks] = (struct glue_lock_rec){ .obj = obj, .cls = cls };
	return &glue_locks[glue_nlocks++];
}

/* The lock moment as the checkpoint names it: "takes i_mmap_rwsem for write". */
static void glue_lock_checkpoint(enum glue_lock_class cls, const char *what, const char *mode,
				 const char *func, const char *file, int line)
{
	char event[64];

	snprintf(event, sizeof(event), "%s %s%s", what, glue_class_names[cls], mode);
	glue_checkpoint(func, file, line, event);
}

void glue_lock_at(const void *obj, enum glue_lock_class cls, bool write, const char *func,
		  const char *file, int line)
{
	struct glue_lock_rec *l;

	/* a walker may run just before the lock is taken */
	glue_lock_checkpoint(cls, "before it takes", write ? " for write" : " for read", func,
			     file, line);
	l = glue_lock_find(obj, cls, true);

	/* one thread: taking a lock already held can only be a self-deadlock */
	if (l->writers || (write && l->readers))
		glue_violation("%s taken while already held (self-deadlock)", glue_class_names[cls]);
	if (write)
		l->writers++;
	else
		l->readers++;
}

static void glue_forget_wlocked(const void *mm)
{
	int i, j = 0;

	for (i = 0; i < glue_nwlocked; i++)
		if ((const void *)glue_vma_mm(glue_wlocked[i]) != mm)
			glue_wlocked[j++] = glue_wlocked[i];
		else
			glue_readers_unlocked(glue_wlocked[i]);
	glue_nwlocked = j;
}

void glue_unlock_at(const void *obj, enum glue_lock_class cls, bool write, const char *func,
		    const char *file, int line)
{
	struct glue_lock_rec *l = glue_lock_find(obj, cls, false);

	if (!l || (write ? l->writers : l->readers) == 0) {
		glue_violation("%s released while not held (%s)", glue_class_names[cls],
			       write ? "write" : "read");
		return;
	}
	if (write)
		l->writers--;
	else
		l->readers--;
	/* mmap_write_unlock() ends every vma_start_write() of the mm (vm_lock_seq) */
	if (cls == GLUE_MMAP_LOCK && write)
		glue_forget_wlocked(obj);
	/* a walker may run just after the lock is released */
	glue_lock_checkpoint(cls, "after it releases", "", func, file, line);
}

void glue_downgrade_at(const void *obj, enum glue_lock_class cls, const char *func,
		       const char *file, int line)
{
	struct glue_lock_rec *l = glue_lock_find(obj, cls, false);

	if (!l || l->writers == 0) {
		glue_violation("%s downgraded while not held for write", glue_class_names[cls]);
		return;
	}
	l->writers--;
	l->readers++;
	if (cls == GLUE_MMAP_LOCK)
		glue_forget_wlocked(obj);
	glue_lock_checkpoint(cls, "after it downgrades", "", func, file, line);
}

bool glue_held(const void *obj, enum glue_lock_class cls, bool write)
{
	struct glue_lock_rec *l = glue_lock_find(obj, cls, false);

	if (!l)
		return false;
	return write ? l->writers > 0 : (l->writers > 0 || l->readers > 0);
}

struct mm_struct *glue_vma_mm(struct vm_area_struct *vma)
{
	return vma->vm_mm;
}

void glue_vma_write_started(struct vm_area_struct *vma)
{
	int i;

	for (i = 0; i < glue_nwlocked; i++)
		if (glue_wlocked[i] == vma)
			return;
	if (glue_nwlocked < GLUE_MAX_OBJS)
		glue_wlocked[glue_nwlocked++] = vma;
}

static void glue_vma_freed(struct vm_area_struct *vma)
{
	int i, j = 0;

	for (i = 0; i < glue_nwlocked; i++)
		if (glue_wlocked[i] != vma)
			glue_wlocked[j++] = glue_wlocked[i];
	glue_nwlocked = j;
	glue_readers_freed(vma);
}

void glue_kmem_cache_free(struct kmem_cache *cache, void *obj)
{
	if (cache == vm_area_cachep && obj)
		glue_vma_freed(obj);
	(kmem_cache_free)(cache, obj);
}

bool glue_vma_write_locked(struct vm_area_struct *vma)
{
	int i;

	for (i = 0; i < glue_nwlocked; i++)
		if (glue_wlocked[i] == vma)
			return true;
	return false;
}

struct anon_vma *glue_anon_root(struct anon_vma *anon_vma)
{
	return anon_vma->root;
}

bool glue_anon_locked(struct anon_vma *anon_vma)
{
	return glue_held(anon_vma, GLUE_ANON_RWSEM, false);
}

/*
 * The rmap part of free_pgtables() (mm/memory.c): every VMA from unmap->first up to
 * unmap->tree_end is write-locked when the caller holds the mmap write lock, leaves its anon
 * trees (unlink_anon_vmas()) and its file tree (one unlink_vma_file_batch: the kernel gathers
 * VMAs closer than PMD_SIZE into one batch, and every VMA rmapcheck makes is that close).
 */
void free_pgtables(struct mmu_gather *tlb, struct unmap_desc *unmap)
{
	struct unlink_vma_file_batch vb;
	struct vm_area_struct *vma = unmap->first;

	unlink_file_vma_batch_init(&vb);
	while (vma) {
		if (unmap->mm_wr_locked)
			vma_start_write(vma);
		unlink_anon_vmas(vma);
		unlink_file_vma_batch_add(&vb, vma);
		vma = mas_find(unmap->mas, unmap->tree_end - 1);
	}
	unlink_file_vma_batch_final(&vb);
}

/* ---- checked tree wrappers ------------------------------------------------------------ */

static void glue_check_file_locks(const char *op, struct address_space *mapping)
{
	if (!glue_held(mapping, GLUE_I_MMAP_RWSEM, true))
		glue_violation("%s without i_mmap_rwsem held for write", op);
}

static void glue_check_anon_lock(const char *op, struct anon_vma *anon_vma)
{
	if (!glue_held(anon_vma->root, GLUE_ANON_RWSEM, true))
		glue_violation("%s without the anon_vma root rwsem held for write", op);
}

/*
 * Each wrapper checks the lock, then the operation's precondition and, for an insert, the
 * descent it will make (treecheck.c), then calls the kernel's function unless the
 * precondition says it must not run.
 */
#include "treecheck.c"

void glue_mapping_rmap_tree_insert(struct vm_area_struct *vma, struct address_space *mapping)
{
	static const char op[] = "mapping_rmap_tree_insert";

	glue_check_file_locks(op, mapping);
	if (glue_check_insert(op, &mapping->i_mmap.rb_root, &vma->shared.rb, glue_file_key))
		__real_mapping_rmap_tree_insert(vma, mapping);
}

void glue_mapping_rmap_tree_insert_after(struct vm_area_struct *vma,
		struct vm_area_struct *prev, struct address_space *mapping)
{
	static const char op[] = "mapping_rmap_tree_insert_after";

	glue_check_file_locks(op, mapping);
	if (glue_check_insert_after(op, &mapping->i_mmap.rb_root, &vma->shared.rb,
				    &prev->shared.rb, glue_file_key))
		__real_mapping_rmap_tree_insert_after(vma, prev, mapping);
}

void glue_mapping_rmap_tree_remove(struct vm_area_struct *vma, struct address_space *mapping)
{
	static const char op[] = "mapping_rmap_tree_remove";

	glue_check_file_locks(op, mapping);
	if (glue_check_remove(op, &mapping->i_mmap.rb_root, &vma->shared.rb, glue_file_key))
		__real_mapping_rmap_tree_remove(vma, mapping);
}

void glue_anon_rmap_tree_insert(struct anon_vma_chain *avc, struct anon_vma *anon_vma)
{
	static const char op[] = "anon_rmap_tree_insert";

	glue_check_anon_lock(op, anon_vma);
	if (glue_check_insert(op, &anon_vma->rb_root.rb_root, &avc->rb, glue_anon_key))
		__real_anon_rmap_tree_insert(avc, anon_vma);
}

void glue_anon_rmap_tree_remove(struct anon_vma_chain *avc, struct anon_vma *anon_vma)
{
	static const char op[] = "anon_rmap_tree_remove";

	glue_check_anon_lock(op, anon_vma);
	if (glue_check_remove(op, &anon_vma->rb_root.rb_root, &avc->rb, glue_anon_key))
		__real_anon_rmap_tree_remove(avc, anon_vma);
}

/* ---- the anon_vma / anon_vma_chain registry (rmap_gen.c allocates through it) --------- */

struct glue_obj {
	void *ptr;
	struct kmem_cache *cache;
};

static struct glue_obj glue_objs[GLUE_MAX_OBJS];
static int glue_nobjs;

void *glue_cache_alloc(struct kmem_cache *cache, int gfp)
{
	void *p = kmem_cache_alloc(cache, gfp);

	if (p) {
		if (glue_nobjs == GLUE_MAX_OBJS)
			glue_bug(__FILE__, __LINE__, "object registry full");
		glue_objs[glue_nobjs++] = (struct glue_obj){ .ptr = p, .cache = cache };
	}
	return p;
}

void glue_cache_free(struct kmem_cache *cache, void *p)
{
	int i;

	for (i = 0; i < glue_nobjs; i++) {
		if (glue_objs[i].ptr == p) {
			if (cache == anon_vma_cachep)
				glue_pages_anon_vma_freed(p);
			glue_objs[i] = glue_objs[--glue_nobjs];
			kmem_cache_free(cache, p);
			return;
		}
	}
	glue_violation("free of an object the registry does not hold");
	kmem_cache_free(cache, p);
}
