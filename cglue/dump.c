// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness, part 3: the raw dump of the world (docs/CDIFF.md, "Protocol") and
 * the corruption hook the tests use. Objects are named by address; rmapcheck renames them
 * canonically. Pages, not bytes. Written for rmapcheck; no kernel text in it.
 */

static void glue_ptr(const void *p)
{
	if (p)
		printf(" %lx", (unsigned long)p);
	else
		printf(" 0");
}

static long glue_file_index(const struct file *f)
{
	int i;

	for (i = 0; i < glue_nfiles; i++)
		if (&glue_files[i].file == f)
			return i;
	return f ? -2 : -1;
}

static const void *glue_node(const struct rb_node *n, size_t off)
{
	return n ? (const char *)n - off : NULL;
}

static void glue_dump_fnode(const struct rb_node *n)
{
	const size_t off = offsetof(struct vm_area_struct, shared.rb);
	const struct vm_area_struct *vma;

	if (!n)
		return;
	vma = glue_node(n, off);
	printf("fnode");
	glue_ptr(vma);
	glue_ptr(glue_node(rb_parent(n), off));
	glue_ptr(glue_node(n->rb_left, off));
	glue_ptr(glue_node(n->rb_right, off));
	printf(" %c %lu\n", rb_is_black(n) ? 'b' : 'r', vma->shared.rb_subtree_last);
	glue_dump_fnode(n->rb_left);
	glue_dump_fnode(n->rb_right);
}

static void glue_dump_anode(const struct rb_node *n)
{
	const size_t off = offsetof(struct anon_vma_chain, rb);
	const struct anon_vma_chain *avc;

	if (!n)
		return;
	avc = glue_node(n, off);
	printf("anode");
	glue_ptr(avc);
	glue_ptr(avc->vma);
	glue_ptr(avc->anon_vma);
	glue_ptr(glue_node(rb_parent(n), off));
	glue_ptr(glue_node(n->rb_left, off));
	glue_ptr(glue_node(n->rb_right, off));
	printf(" %c %lu %lu %lu\n", rb_is_black(n) ? 'b' : 'r', avc->rb_subtree_last,
	       avc->cached_vma_start, avc->cached_vma_last);
	glue_dump_anode(n->rb_left);
	glue_dump_anode(n->rb_right);
}

static void glue_dump(void)
{
	int i;

	for (i = 0; i < glue_nmms; i++) {
		struct mm_struct *mm = glue_mms[i];
		struct vm_area_struct *vma;
		VMA_ITERATOR(vmi, mm, 0);

		printf("mm %d %d\n", i, mm->map_count);
		for_each_vma(vmi, vma) {
			struct anon_vma_chain *avc;

			printf("vma");
			glue_ptr(vma);
			printf(" %lu %lu %lu %lu %ld %d %d %d %d %d", vma->vm_start >> PAGE_SHIFT,
			       vma->vm_end >> PAGE_SHIFT, vma->vm_pgoff, vma_start_anon_pgoff(vma),
			       glue_file_index(vma->vm_file), vma_is_anonymous(vma),
			       vma_test(vma, VMA_WRITE_BIT), vma_test(vma, VMA_SHARED_BIT),
			       vma_test(vma, VMA_GROWSDOWN_BIT), vma_test(vma, VMA_ACCOUNT_BIT));
			glue_ptr(vma->anon_vma);
			printf(" chain");
			list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
				glue_ptr(avc);
			printf("\n");
		}
	}
	for (i = 0; i < glue_nfiles; i++) {
		struct rb_root_cached *t = &glue_files[i].mapping.i_mmap;

		printf("file %d %d", i, glue_files[i].dev_zero);
		glue_ptr(glue_node(t->rb_root.rb_node, offsetof(struct vm_area_struct, shared.rb)));
		glue_ptr(glue_node(t->rb_leftmost, offsetof(struct vm_area_struct, shared.rb)));
		printf("\n");
		glue_dump_fnode(t->rb_root.rb_node);
	}
	for (i = 0; i < glue_nobjs; i++) {
		struct anon_vma *av = glue_objs[i].ptr;
		struct rb_root_cached *t;

		if (glue_objs[i].cache != anon_vma_cachep)
			continue;
		t = &av->rb_root;
		printf("anon_vma");
		glue_ptr(av);
		glue_ptr(av->root);
		glue_ptr(av->parent);
		printf(" %d %lu %lu", atomic_read(&av->refcount), av->num_children,
		       av->num_active_vmas);
		glue_ptr(glue_node(t->rb_root.rb_node, offsetof(struct anon_vma_chain, rb)));
		glue_ptr(glue_node(t->rb_leftmost, offsetof(struct anon_vma_chain, rb)));
		printf("\n");
		glue_dump_anode(t->rb_root.rb_node);
	}
	for (i = 0; i < glue_nobjs; i++) {
		if (glue_objs[i].cache == anon_vma_chain_cachep) {
			struct anon_vma_chain *avc = glue_objs[i].ptr;

			printf("avc");
			glue_ptr(avc);
			glue_ptr(avc->vma);
			glue_ptr(avc->anon_vma);
			printf("\n");
		}
	}
	glue_dump_pages();
	for (i = 0; i < glue_nlocks; i++)
		if (glue_locks[i].writers || glue_locks[i].readers)
			printf("held %s\n", glue_class_names[glue_locks[i].cls]);
	for (i = 0; i < glue_nviolations; i++)
		printf("violation %s\n", glue_violations[i]);
	for (i = 0; i < glue_nwarns; i++)
		printf("warn %s\n", glue_warns[i]);
	if (glue_violations_over || glue_warns_over)
		printf("overflow GLUE_MAX_NOTES %d violations %d warnings %d\n", GLUE_MAX_NOTES,
		       glue_violations_over, glue_warns_over);
	printf("end\n");
}

/* Test hook: add 1 to the rb_subtree_last of the root node of file#index's i_mmap, or of
 * the index-th live anon_vma's tree. */
static void glue_corrupt(const char *what, long index)
{
	int i, k = 0;

	if (!strcmp(what, "file") && index >= 0 && index < glue_nfiles) {
		struct rb_node *n = glue_files[index].mapping.i_mmap.rb_root.rb_node;

		if (n) {
			((struct vm_area_struct *)glue_node(n, offsetof(struct vm_area_struct,
						 shared.rb)))->shared.rb_subtree_last++;
			printf("ok 0\n");
			return;
		}
	}
	if (!strcmp(what, "anon")) {
		for (i = 0; i < glue_nobjs; i++) {
			struct anon_vma *av = glue_objs[i].ptr;
			struct rb_node *n;

			if (glue_objs[i].cache != anon_vma_cachep || k++ != index)
				continue;
			n = av->rb_root.rb_root.rb_node;
			if (n) {
				((struct anon_vma_chain *)glue_node(n, offsetof(struct anon_vma_chain,
							 rb)))->rb_subtree_last++;
				printf("ok 0\n");
				return;
			}
		}
	}
	printf("error nothing to corrupt: %s %ld\n", what, index);
}
