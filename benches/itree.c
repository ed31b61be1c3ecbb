/*
 * A plain C interval tree for benches/tree.rs: an augmented red-black tree keyed on START with
 * subtree_last = the largest LAST below each node (textbook insert and erase fixups, the
 * augmented value repaired on rotations and up the erase path), the leftmost node cached, and
 * the query of interval_tree_generic.h (iter_first / iter_next with the subtree search). No
 * stale-descent check: this is what the tree costs without one.
 *
 * Written for this benchmark; it is not kernel code. Usage: itree LIST SETUP, where LIST is an
 * op list of `insert START LAST`, `erase nID` and `query FIRST LAST` lines (ids in insert
 * order) and the first SETUP ops are not timed. Prints `OPS_PER_S HITS`, HITS being the nodes
 * the timed queries returned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned long long u64;

struct node {
	int parent, left, right, red;
	u64 start, last, sub;
};

/* node 0 is the sentinel (NIL); object id i is node i + 1 */
static struct node *t;
static int root, leftmost;

static void update(int x)
{
	u64 m = t[x].last;
	if (t[x].left && t[t[x].left].sub > m)
		m = t[t[x].left].sub;
	if (t[x].right && t[t[x].right].sub > m)
		m = t[t[x].right].sub;
	t[x].sub = m;
}

static void replace_child(int parent, int old, int new)
{
	if (!parent)
		root = new;
	else if (t[parent].left == old)
		t[parent].left = new;
	else
		t[parent].right = new;
}

static void rotate_left(int x)
{
	int y = t[x].right;
	t[x].right = t[y].left;
	if (t[y].left)
		t[t[y].left].parent = x;
	t[y].parent = t[x].parent;
	replace_child(t[x].parent, x, y);
	t[y].left = x;
	t[x].parent = y;
	t[y].sub = t[x].sub;
	update(x);
}

static void rotate_right(int x)
{
	int y = t[x].left;
	t[x].left = t[y].right;
	if (t[y].right)
		t[t[y].right].parent = x;
	t[y].parent = t[x].parent;
	replace_child(t[x].parent, x, y);
	t[y].right = x;
	t[x].parent = y;
	t[y].sub = t[x].sub;
	update(x);
}

static void insert(int z)
{
	int y = 0, x = root, is_leftmost = 1;
	while (x) {
		y = x;
		if (t[x].sub < t[z].last)
			t[x].sub = t[z].last;
		if (t[z].start < t[x].start) {
			x = t[x].left;
		} else {
			x = t[x].right;
			is_leftmost = 0;
		}
	}
	t[z].parent = y;
	t[z].left = t[z].right = 0;
	t[z].red = 1;
	t[z].sub = t[z].last;
	if (!y)
		root = z;
	else if (t[z].start < t[y].start)
		t[y].left = z;
	else
		t[y].right = z;
	if (is_leftmost)
		leftmost = z;
	while (t[t[z].parent].red) {
		int p = t[z].parent, g = t[p].parent;
		if (p == t[g].left) {
			int u = t[g].right;
			if (t[u].red) {
				t[p].red = t[u].red = 0;
				t[g].red = 1;
				z = g;
				continue;
			}
			if (z == t[p].right) {
				z = p;
				rotate_left(z);
				p = t[z].parent;
			}
			t[p].red = 0;
			t[g].red = 1;
			rotate_right(g);
		} else {
			int u = t[g].left;
			if (t[u].red) {
				t[p].red = t[u].red = 0;
				t[g].red = 1;
				z = g;
				continue;
			}
			if (z == t[p].left) {
				z = p;
				rotate_right(z);
				p = t[z].parent;
			}
			t[p].red = 0;
			t[g].red = 1;
			rotate_left(g);
		}
	}
	t[root].red = 0;
}

static int minimum(int x)
{
	while (t[x].left)
		x = t[x].left;
	return x;
}

/* v takes u's place under u's parent; the sentinel's parent may be set (the fixup reads it) */
static void transplant(int u, int v)
{
	replace_child(t[u].parent, u, v);
	t[v].parent = t[u].parent;
}

static void erase(int z)
{
	int y = z, x, fix, y_red = t[y].red;
	if (z == leftmost)
		leftmost = t[z].right ? minimum(t[z].right) : t[z].parent;
	if (!t[z].left) {
		x = t[z].right;
		fix = t[z].parent;
		transplant(z, x);
	} else if (!t[z].right) {
		x = t[z].left;
		fix = t[z].parent;
		transplant(z, x);
	} else {
		y = minimum(t[z].right);
		y_red = t[y].red;
		x = t[y].right;
		if (t[y].parent == z) {
			t[x].parent = y;
			fix = y;
		} else {
			fix = t[y].parent;
			transplant(y, x);
			t[y].right = t[z].right;
			t[t[y].right].parent = y;
		}
		transplant(z, y);
		t[y].left = t[z].left;
		t[t[y].left].parent = y;
		t[y].red = t[z].red;
	}
	for (int n = fix; n; n = t[n].parent)
		update(n);
	t[0].sub = 0;
	if (y_red)
		return;
	while (x != root && !t[x].red) {
		int p = t[x].parent;
		if (x == t[p].left) {
			int w = t[p].right;
			if (t[w].red) {
				t[w].red = 0;
				t[p].red = 1;
				rotate_left(p);
				w = t[p].right;
			}
			if (!t[t[w].left].red && !t[t[w].right].red) {
				t[w].red = 1;
				x = p;
			} else {
				if (!t[t[w].right].red) {
					t[t[w].left].red = 0;
					t[w].red = 1;
					rotate_right(w);
					w = t[p].right;
				}
				t[w].red = t[p].red;
				t[p].red = 0;
				t[t[w].right].red = 0;
				rotate_left(p);
				x = root;
			}
		} else {
			int w = t[p].left;
			if (t[w].red) {
				t[w].red = 0;
				t[p].red = 1;
				rotate_right(p);
				w = t[p].left;
			}
			if (!t[t[w].right].red && !t[t[w].left].red) {
				t[w].red = 1;
				x = p;
			} else {
				if (!t[t[w].left].red) {
					t[t[w].right].red = 0;
					t[w].red = 1;
					rotate_left(w);
					w = t[p].left;
				}
				t[w].red = t[p].red;
				t[p].red = 0;
				t[t[w].left].red = 0;
				rotate_right(p);
				x = root;
			}
		}
	}
	t[x].red = 0;
	t[0].parent = 0;
	t[0].sub = 0;
}

static int subtree_search(int node, u64 start, u64 last)
{
	for (;;) {
		int l = t[node].left;
		if (l && start <= t[l].sub) {
			node = l;
			continue;
		}
		if (t[node].start <= last) {
			if (start <= t[node].last)
				return node;
			node = t[node].right;
			if (node)
				continue;
		}
		return 0;
	}
}

static int iter_first(u64 start, u64 last)
{
	if (!root || t[root].sub < start)
		return 0;
	if (t[leftmost].start > last)
		return 0;
	return subtree_search(root, start, last);
}

static int iter_next(int node, u64 start, u64 last)
{
	int rb = t[node].right, prev;
	for (;;) {
		if (rb && start <= t[rb].sub)
			return subtree_search(rb, start, last);
		do {
			rb = t[node].parent;
			if (!rb)
				return 0;
			prev = node;
			node = rb;
			rb = t[node].right;
		} while (prev == rb);
		if (last < t[node].start)
			return 0;
		if (start <= t[node].last)
			return node;
	}
}

struct op {
	char kind;
	u64 a, b;
};

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: itree LIST SETUP\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	long setup = atol(argv[2]);
	size_t n = 0, cap = 1024, inserts = 0;
	struct op *ops = malloc(cap * sizeof(*ops));
	char line[128];
	while (ops && fgets(line, sizeof(line), f)) {
		struct op o = { 0, 0, 0 };
		if (sscanf(line, "insert %llu %llu", &o.a, &o.b) == 2) {
			o.kind = 'i';
			inserts++;
		} else if (sscanf(line, "erase n%llu", &o.a) == 1) {
			o.kind = 'e';
		} else if (sscanf(line, "query %llu %llu", &o.a, &o.b) == 2) {
			o.kind = 'q';
		} else {
			continue;
		}
		if (n == cap) {
			cap *= 2;
			ops = realloc(ops, cap * sizeof(*ops));
			if (!ops)
				break;
		}
		ops[n++] = o;
	}
	fclose(f);
	t = calloc(inserts + 2, sizeof(*t));
	if (!ops || !t) {
		fprintf(stderr, "out of memory\n");
		return 2;
	}
	int next_id = 1;
	u64 hits = 0;
	struct timespec t0, t1;
	for (size_t i = 0; i < n; i++) {
		if ((long)i == setup)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		struct op *o = &ops[i];
		if (o->kind == 'i') {
			int z = next_id++;
			t[z].start = o->a;
			t[z].last = o->b;
			insert(z);
		} else if (o->kind == 'e') {
			erase((int)o->a + 1);
		} else {
			u64 found = 0;
			for (int x = iter_first(o->a, o->b); x; x = iter_next(x, o->a, o->b))
				found++;
			if ((long)i >= setup)
				hits += found;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if ((long)n <= setup)
		t0 = t1;
	double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (secs < 1e-9)
		secs = 1e-9;
	printf("%.0f %llu\n", (double)(n - (size_t)setup) / secs, hits);
	return 0;
}
