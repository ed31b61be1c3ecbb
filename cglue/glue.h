/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rmapcheck's C harness: declarations that replace the rmap stubs of the kernel tree's
 * tools/testing/vma environment. Written for rmapcheck; no kernel text in it.
 *
 * The build copies tools/testing/vma into its cache directory, removes the stubs named in
 * src/charness/build.rs from the copy's include/stubs.h and include/custom.h, replaces the
 * copy's struct anon_vma_chain / struct anon_vma with the kernel's own definitions (taken from
 * include/linux/rmap.h at build time) and includes this header at the end of the copy's
 * vma_internal.h, so that mm/vma.c, mm/vma_init.c and mm/vma_exec.c see it.
 *
 * What it provides:
 * - lock recording: i_mmap_rwsem, the flush_dcache lock, the anon_vma root rwsem, mmap_lock
 *   and vma_start_write() are recorded per object, and a tree operation made without its lock
 *   is recorded as a violation (glue_violation);
 * - WARN_ON / WARN_ON_ONCE / BUG_ON recorded instead of printed: every WARN is kept for the
 *   dump (a WARN_ON_ONCE fires every time: the harness runs many sequences in one process);
 *   a BUG is printed on the protocol stream and the process exits;
 * - prototypes of the real tree functions (mm/interval_tree.c) and anon_vma functions
 *   (mm/rmap.c), which the build compiles after mm/vma.c.
 */
#ifndef RMAPCHECK_GLUE_H
#define RMAPCHECK_GLUE_H

#include <stdbool.h>

struct vm_area_struct;
struct anon_vma;
struct anon_vma_chain;
struct address_space;
struct mm_struct;
struct file;

/* ---- recorded WARN / BUG ------------------------------------------------------------- */

void glue_warn(const char *file, int line, const char *cond);
void glue_bug(const char *file, int line, const char *cond) __attribute__((noreturn));

#undef WARN_ON
#define WARN_ON(condition) ({						\
	int __glue_warn = !!(condition);				\
	if (__glue_warn)						\
		glue_warn(__FILE__, __LINE__, #condition);		\
	__glue_warn;							\
})
#undef WARN_ON_ONCE
#define WARN_ON_ONCE(condition) WARN_ON(condition)
#undef WARN_ONCE
#define WARN_ONCE(condition, format...) WARN_ON(condition)
#undef WARN
#define WARN(condition, format...) WARN_ON(condition)
#undef BUG_ON
#define BUG_ON(condition) do {						\
	if (condition)							\
		glue_bug(__FILE__, __LINE__, #condition);		\
} while (0)
#undef BUG
#define BUG() glue_bug(__FILE__, __LINE__, "BUG()")
#undef VM_WARN_ON
#define VM_WARN_ON(_expr) WARN_ON(_expr)
#undef VM_WARN_ON_ONCE
#define VM_WARN_ON_ONCE(_expr) WARN_ON(_expr)
#undef VM_WARN_ON_ONCE_VMA
#define VM_WARN_ON_ONCE_VMA(_expr, _vma) WARN_ON(_expr)
#undef VM_WARN_ON_VMG
#define VM_WARN_ON_VMG(_expr, _vmg) WARN_ON(_expr)
#undef VM_BUG_ON
#define VM_BUG_ON(_expr) BUG_ON(_expr)
#undef VM_BUG_ON_VMA
#define VM_BUG_ON_VMA(_expr, _vma) BUG_ON(_expr)

/* ---- injected failures (undo.c) ----------------------------------------------------- */

/* the next maple-tree clear of a munmap fails (do_vmi_align_munmap()'s clear_tree_failed) */
extern bool glue_fail_clear_gfp;
#define vma_iter_clear_gfp(vmi, start, end, gfp)					\
	(glue_fail_clear_gfp ? (glue_fail_clear_gfp = false, -ENOMEM) :			\
			       (vma_iter_clear_gfp)(vmi, start, end, gfp))

/* ---- recorded locks ------------------------------------------------------------------ */

enum glue_lock_class {
	GLUE_MMAP_LOCK,		/* mm->mmap_lock */
	GLUE_I_MMAP_RWSEM,	/* mapping->i_mmap_rwsem */
	GLUE_FLUSH_DCACHE,	/* flush_dcache_mmap_lock(mapping) */
	GLUE_ANON_RWSEM,	/* anon_vma->root->rwsem */
};

/*
 * Each lock operation is a walker checkpoint (pages.c), named by the kernel function and
 * line that makes it: the lock functions below are macros so that __func__ and __LINE__ are
 * the caller's.
 */
void glue_lock_at(const void *obj, enum glue_lock_class cls, bool write, const char *func,
		  const char *file, int line);
void glue_unlock_at(const void *obj, enum glue_lock_class cls, bool write, const char *func,
		    const char *file, int line);
void glue_downgrade_at(const void *obj, enum glue_lock_class cls, const char *func,
		       const char *file, int line);
#define glue_lock(obj, cls, write) glue_lock_at(obj, cls, write, __func__, __FILE__, __LINE__)
#define glue_unlock(obj, cls, write) glue_unlock_at(obj, cls, write, __func__, __FILE__, __LINE__)
#define glue_downgrade(obj, cls) glue_downgrade_at(obj, cls, __func__, __FILE__, __LINE__)
void glue_checkpoint(const char *func, const char *file, int line, const char *event);
bool glue_held(const void *obj, enum glue_lock_class cls, bool write);
void glue_violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void glue_vma_write_started(struct vm_area_struct *vma);
struct mm_struct *glue_vma_mm(struct vm_area_struct *vma);

/*
 * The kernel's rw_semaphore is replaced by the recording above: the struct only holds a
 * counter so that the kernel's struct anon_vma keeps its layout and init_rwsem() compiles.
 */
#ifndef _TOOLS__RWSEM_H
#define _TOOLS__RWSEM_H
struct rw_semaphore {
	int unused;
};
static inline int init_rwsem(struct rw_semaphore *sem)
{
	sem->unused = 0;
	return 0;
}
#endif

/*
 * The kernel's struct anon_vma_chain and struct anon_vma (include/linux/rmap.h), written into
 * the build directory at build time; CONFIG_DEBUG_VM_RB keeps the chains' cached keys.
 */
#include "rmap_structs.h"

#define i_mmap_lock_write(mapping) glue_lock(mapping, GLUE_I_MMAP_RWSEM, true)
#define i_mmap_unlock_write(mapping) glue_unlock(mapping, GLUE_I_MMAP_RWSEM, true)
#define flush_dcache_mmap_lock(mapping) glue_lock(mapping, GLUE_FLUSH_DCACHE, true)
#define flush_dcache_mmap_unlock(mapping) glue_unlock(mapping, GLUE_FLUSH_DCACHE, true)

/* The anon_vma locks take the root's rwsem, as mm/internal.h's helpers do. */
struct anon_vma *glue_anon_root(struct anon_vma *anon_vma);
bool glue_anon_locked(struct anon_vma *anon_vma);

#define anon_vma_lock_write(anon_vma) glue_lock(glue_anon_root(anon_vma), GLUE_ANON_RWSEM, true)
#define anon_vma_unlock_write(anon_vma) \
	glue_unlock(glue_anon_root(anon_vma), GLUE_ANON_RWSEM, true)

#define rwsem_is_locked(sem) glue_anon_locked(container_of(sem, struct anon_vma, rwsem))

#define mmap_write_unlock(mm) glue_unlock(mm, GLUE_MMAP_LOCK, true)
#define mmap_read_unlock(mm) glue_unlock(mm, GLUE_MMAP_LOCK, false)
#define mmap_write_downgrade(mm) glue_downgrade(mm, GLUE_MMAP_LOCK)

static inline int mmap_write_lock_killable(struct mm_struct *mm)
{
	glue_lock(mm, GLUE_MMAP_LOCK, true);
	return 0;
}

static inline void mmap_assert_locked(struct mm_struct *mm)
{
	if (!glue_held(mm, GLUE_MMAP_LOCK, false))
		glue_violation("mmap_assert_locked: mmap_lock not held");
}

static inline void mmap_assert_write_locked(struct mm_struct *mm)
{
	if (!glue_held(mm, GLUE_MMAP_LOCK, true))
		glue_violation("mmap_assert_write_locked: mmap_lock not held for write");
}

/*
 * vma_start_write(): a walker checkpoint just before the VMA is write-locked (a per-VMA-lock
 * reader may still hold it then), named by the caller's function and line through the macro
 * below; the function itself stays for include/dup.h, whose helpers call it before this
 * header is read.
 */
static inline void glue_vma_start_write_at(struct vm_area_struct *vma, const char *func,
					   const char *file, int line)
{
	if (!glue_held(glue_vma_mm(vma), GLUE_MMAP_LOCK, true))
		glue_violation("vma_start_write without the mmap write lock");
	glue_checkpoint(func, file, line, "before vma_start_write()");
	glue_vma_write_started(vma);
}

static inline void vma_start_write(struct vm_area_struct *vma)
{
	glue_vma_start_write_at(vma, __func__, __FILE__, __LINE__);
}
#define vma_start_write(vma) glue_vma_start_write_at(vma, __func__, __FILE__, __LINE__)

static inline __must_check int vma_start_write_killable(struct vm_area_struct *vma)
{
	vma_start_write(vma);
	return 0;
}
#define vma_start_write_killable(vma) \
	({ glue_vma_start_write_at(vma, __func__, __FILE__, __LINE__); 0; })

/*
 * vma_assert_write_locked() stays the tree's no-op stub: include/dup.h calls it before this
 * header is read. glue_vma_write_locked() answers the same question for the glue.
 */
bool glue_vma_write_locked(struct vm_area_struct *vma);

/* ---- page-table stubs the paths need to succeed ------------------------------------- */

struct pagetable_move_control;
unsigned long glue_move_page_tables(struct pagetable_move_control *pmc);
#define move_page_tables(pmc) glue_move_page_tables(pmc)

/* Ghost pages (pages.c): the zap of unmap_vmas() (mm/memory.c), what the calls do to ptes. */
struct mmu_gather;
struct unmap_desc;
void unmap_vmas(struct mmu_gather *tlb, struct unmap_desc *unmap);
void glue_pages_anon_vma_freed(const void *av);
void glue_pages_reset(void);
void glue_fault_anon(struct vm_area_struct *vma, unsigned long addr);
void glue_fault_file(struct vm_area_struct *vma, unsigned long addr);
void glue_zap(struct mm_struct *mm, unsigned long start, unsigned long end);
void glue_copy_ptes(struct vm_area_struct *dst, struct vm_area_struct *src);
void glue_pages_begin_call(void);
void glue_pages_allow(struct mm_struct *mm, unsigned long start, unsigned long end);
void glue_pages_end_call(void);
void glue_pages_temp_stack(struct mm_struct *mm);
/* The walker checkpoints' per-VMA readers (checkpoint.c). */
void glue_readers_begin_call(void);
void glue_readers_unlocked(struct vm_area_struct *vma);
void glue_readers_freed(struct vm_area_struct *vma);
void glue_dump_pages(void);

/*
 * free_pgtables() (mm/memory.c) hides each VMA it frees page tables for from the rmap: the
 * glue does that part (glue.c), the page tables themselves do not exist here.
 */
struct mmu_gather;
struct unmap_desc;
void free_pgtables(struct mmu_gather *tlb, struct unmap_desc *unmap);

/* A file's ->mmap, called by __mmap_new_file_vma(), as mm/internal.h's mmap_file() does. */
int glue_mmap_file(struct file *file, struct vm_area_struct *vma);
#define mmap_file(file, vma) glue_mmap_file(file, vma)

/* ---- the real rmap code, compiled after mm/vma.c ------------------------------------ */

/*
 * mm/vma.c and mm/rmap.c call these by their kernel names; generation.h (written at build time
 * from the tree's generation, src/charness/generation.rs) routes those names to the glue's
 * checked wrappers (glue.c), which take the tree's owner, check the lock and then call the
 * kernel's function from mm/interval_tree.c (built under the __real_ names). The glue is
 * written in v7.3's names; an older tree's are mapped to them there and at the end of
 * rmap_gen.c.
 */
#include "generation.h"

void glue_mapping_rmap_tree_insert(struct vm_area_struct *vma, struct address_space *mapping);
void glue_mapping_rmap_tree_insert_after(struct vm_area_struct *vma,
		struct vm_area_struct *prev, struct address_space *mapping);
void glue_mapping_rmap_tree_remove(struct vm_area_struct *vma, struct address_space *mapping);
void glue_anon_rmap_tree_insert(struct anon_vma_chain *avc, struct anon_vma *anon_vma);
void glue_anon_rmap_tree_remove(struct anon_vma_chain *avc, struct anon_vma *anon_vma);

/*
 * The other functions mm/interval_tree.c defines (queries, and any helper a patch adds there),
 * declared from their definitions at build time: rmap_gen.c compiles them after mm/vma.c. One
 * that takes a tree's owner (an address_space or an anon_vma) and is not a query is compiled
 * under its __real_ name, behind a generated wrapper by its own name (rmap_helpers.c) that
 * checks the owner's lock as glue.c's wrappers do (src/charness/lock_wrappers.rs).
 */
#include "rmap_protos.h"

/* The registry of anon_vma and anon_vma_chain objects (glue.c); rmap_gen.c allocates
 * and frees through it. */
struct kmem_cache;
void *glue_cache_alloc(struct kmem_cache *cache, int gfp);
void glue_cache_free(struct kmem_cache *cache, void *p);

/*
 * kmem_cache_free() as the tree's code calls it (vm_area_free() in mm/vma_init.c): a VMA
 * leaves the glue's tables (its write lock since the last mmap_lock release, its reader
 * snapshot) before its memory goes back to the cache, which hands the same address to the
 * next VMA allocated. glue.c calls the function itself as (kmem_cache_free)().
 */
void glue_kmem_cache_free(struct kmem_cache *cache, void *obj);
#define kmem_cache_free(cache, obj) glue_kmem_cache_free(cache, obj)

#ifndef smp_store_release
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#endif

#ifndef KMEM_CACHE
#define KMEM_CACHE(__struct, __flags) \
	kmem_cache_create(#__struct, sizeof(struct __struct), __alignof__(struct __struct), \
			  (__flags), NULL)
#endif

/* mm/rmap.c (extracted at build time into rmap_gen.c) */
int __anon_vma_prepare(struct vm_area_struct *vma);
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
void unlink_anon_vmas(struct vm_area_struct *vma);
void __put_anon_vma(struct anon_vma *anon_vma);
void anon_vma_init(void);
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src,
		   enum vma_operation operation);

static inline int anon_vma_prepare(struct vm_area_struct *vma)
{
	if (vma->anon_vma)
		return 0;
	return __anon_vma_prepare(vma);
}

#endif /* RMAPCHECK_GLUE_H */
