// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmapcheck's C harness, part 1b: what the tree wrappers of glue.c check before they call a
 * kernel tree operation, defined as the model's trees define it (src/tree/interval.rs,
 * src/world/builtins/trees.rs):
 *
 * - tree-precondition: no insert of a node the tree already holds, no remove of a node it does
 *   not hold, insert_after only after a member, of a non-member, at the same start pgoff. The
 *   wrapper then does not call the kernel's function (on a member or a non-member it would
 *   corrupt the tree, or loop), except for insert_after at another pgoff, which the kernel
 *   carries out (its own VM_WARN fires too).
 * - stale-descent: before an insert, the key descent the kernel's insert is about to make is
 *   replayed from the root (ties go right), every key read from its VMA at that moment. A node
 *   it passes whose start pgoff is below its in-order predecessor's or above its in-order
 *   successor's sits where its current key does not belong: the descent may take the wrong
 *   side there. Each node is passed at most once per descent, so reported at most once.
 *
 * The harness calls no interval-tree query (vma.c makes none), so only inserts descend.
 * Included by glue.c. Written for rmapcheck; no kernel text in it.
 */

/* A node's key (start pgoff), read from its VMA now. */
typedef unsigned long (*glue_key_fn)(struct rb_node *node);

static unsigned long glue_file_key(struct rb_node *n)
{
	return vma_start_pgoff(rb_entry(n, struct vm_area_struct, shared.rb));
}

static unsigned long glue_anon_key(struct rb_node *n)
{
	return avc_start_pgoff(rb_entry(n, struct anon_vma_chain, rb));
}

/* Whether @root's tree holds @node (in order from the first; a bounded walk). */
static bool glue_tree_holds(struct rb_root *root, struct rb_node *node)
{
	struct rb_node *n;
	int steps = 0;

	for (n = rb_first(root); n && steps < GLUE_MAX_OBJS; n = rb_next(n), steps++)
		if (n == node)
			return true;
	return false;
}

static void glue_neighbour(char *buf, size_t len, const char *which, struct rb_node *n,
			   glue_key_fn key)
{
	if (n)
		snprintf(buf, len, " (%s starts at %lu)", which, key(n));
	else
		buf[0] = '\0';
}

/* Replay the descent of an insert of a node starting at @start, reporting stale nodes. */
static void glue_check_descent(const char *op, struct rb_root *root, unsigned long start,
			       glue_key_fn key)
{
	struct rb_node *n = root->rb_node;
	int depth = 0;

	while (n && depth++ < 64) {
		struct rb_node *pred = rb_prev(n), *succ = rb_next(n);
		unsigned long k = key(n);

		if ((pred && k < key(pred)) || (succ && k > key(succ))) {
			char p[48], s[48];

			glue_neighbour(p, sizeof(p), "predecessor", pred, key);
			glue_neighbour(s, sizeof(s), "successor", succ, key);
			glue_violation("stale-descent: %s (start %lu) passed a node whose start %lu is out of order%s%s",
				       op, start, k, p, s);
		}
		n = start < k ? n->rb_left : n->rb_right;
	}
}

/* The checks before an insert: false when the kernel's insert must not run. */
static bool glue_check_insert(const char *op, struct rb_root *root, struct rb_node *node,
			      glue_key_fn key)
{
	if (glue_tree_holds(root, node)) {
		glue_violation("tree-precondition: %s: the node (start %lu) is already in the tree",
			       op, key(node));
		return false;
	}
	glue_check_descent(op, root, key(node), key);
	return true;
}

/* The check before a remove: false when the kernel's remove must not run. */
static bool glue_check_remove(const char *op, struct rb_root *root, struct rb_node *node,
			      glue_key_fn key)
{
	if (!glue_tree_holds(root, node)) {
		glue_violation("tree-precondition: %s: the node (start %lu) is not in the tree",
			       op, key(node));
		return false;
	}
	return true;
}

/* The checks before insert_after (fork's copy after its parent): no descent is made. */
static bool glue_check_insert_after(const char *op, struct rb_root *root, struct rb_node *node,
				    struct rb_node *prev, glue_key_fn key)
{
	if (!glue_tree_holds(root, prev)) {
		glue_violation("tree-precondition: %s: prev (start %lu) is not in the tree",
			       op, key(prev));
		return false;
	}
	if (glue_tree_holds(root, node)) {
		glue_violation("tree-precondition: %s: the node (start %lu) is already in the tree",
			       op, key(node));
		return false;
	}
	if (key(node) != key(prev))
		glue_violation("tree-precondition: %s: the node starts at %lu but prev at %lu",
			       op, key(node), key(prev));
	return true;
}
