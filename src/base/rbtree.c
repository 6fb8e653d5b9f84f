/* Intrusive red-black tree: rebalancing on insertion and removal, in-order steps and an
 * invariant check for tests. Nodes are owned and allocated by their users; the tree only
 * links them. Every path from the root to a leaf holds as many black nodes, and a red
 * node has no red child, so the depth stays under 2 * log2(n + 1).
 */
#include <base/rbtree.h>

static inline bool rb_is_red(const struct rb_node *n)
{
	return n && n->red;
}

/* Puts <by> (may be NULL) where <old> hangs: under old's parent, or at the root. */
static void rb_replace(struct rb_tree *t, struct rb_node *old, struct rb_node *by)
{
	struct rb_node *p = old->parent;

	if (!p)
		t->root = by;
	else
		p->kid[p->kid[1] == old] = by;
	if (by)
		by->parent = p;
}

/* Moves <x> down to side <dir>: its child on the other side takes its place. */
static void rb_rotate(struct rb_tree *t, struct rb_node *x, int dir)
{
	struct rb_node *y = x->kid[!dir];

	x->kid[!dir] = y->kid[dir];
	if (y->kid[dir])
		y->kid[dir]->parent = x;
	rb_replace(t, x, y);
	y->kid[dir] = x;
	x->parent = y;
}

void rb_insert_at(struct rb_tree *t, struct rb_node *n, struct rb_node *parent, int dir)
{
	struct rb_node *p, *g, *u;

	n->parent = parent;
	n->kid[0] = n->kid[1] = NULL;
	n->red = true;
	if (!parent) {
		t->root = t->first = n;
	} else {
		parent->kid[dir] = n;
		if (!dir && parent == t->first)
			t->first = n;
	}
	/* a red node under a red parent: recolour while the uncle is red (moves the fault
	 * two levels up), else one or two rotations end it */
	while ((p = n->parent) && p->red) {
		g = p->parent; /* a red node is never the root */
		dir = g->kid[1] == p;
		u = g->kid[!dir];
		if (rb_is_red(u)) {
			p->red = u->red = false;
			g->red = true;
			n = g;
			continue;
		}
		if (n == p->kid[!dir]) { /* inner grandchild: make it outer */
			rb_rotate(t, p, dir);
			p = n;
		}
		p->red = false;
		g->red = true;
		rb_rotate(t, g, !dir);
		break;
	}
	t->root->red = false;
}

/* After a black node was taken from above <x> (may be NULL) under <xp>: the paths through
 * <x> lack one black node. */
static void rb_erase_fix(struct rb_tree *t, struct rb_node *x, struct rb_node *xp)
{
	while (x != t->root && !rb_is_red(x)) {
		/* x's sibling exists: its side holds at least one more black node */
		int dir = xp->kid[1] == x;
		struct rb_node *w = xp->kid[!dir];

		if (w->red) { /* make the sibling black, one level down */
			w->red = false;
			xp->red = true;
			rb_rotate(t, xp, dir);
			w = xp->kid[!dir];
		}
		if (!rb_is_red(w->kid[0]) && !rb_is_red(w->kid[1])) {
			w->red = true; /* both sides lack one now: move the fault up */
			x = xp;
			xp = x->parent;
			continue;
		}
		if (!rb_is_red(w->kid[!dir])) { /* make the sibling's outer child red */
			w->kid[dir]->red = false;
			w->red = true;
			rb_rotate(t, w, !dir);
			w = xp->kid[!dir];
		}
		w->red = xp->red;
		xp->red = false;
		w->kid[!dir]->red = false;
		rb_rotate(t, xp, dir);
		x = t->root;
	}
	if (x)
		x->red = false;
}

void rb_erase(struct rb_tree *t, struct rb_node *n)
{
	struct rb_node *x, *xp, *y;
	bool black_gone;

	if (t->first == n)
		t->first = rb_next(n);
	if (!n->kid[0] || !n->kid[1]) {
		x = n->kid[0] ? n->kid[0] : n->kid[1];
		xp = n->parent;
		black_gone = !n->red;
		rb_replace(t, n, x);
	} else {
		/* two children: n's successor <y> (no smaller child) takes n's place and
		 * colour, its own place goes to its greater child <x> */
		y = n->kid[1];
		while (y->kid[0])
			y = y->kid[0];
		black_gone = !y->red;
		x = y->kid[1];
		if (y->parent == n) {
			xp = y;
		} else {
			xp = y->parent;
			rb_replace(t, y, x);
			y->kid[1] = n->kid[1];
			y->kid[1]->parent = y;
		}
		rb_replace(t, n, y);
		y->kid[0] = n->kid[0];
		y->kid[0]->parent = y;
		y->red = n->red;
	}
	n->parent = n->kid[0] = n->kid[1] = NULL;
	if (black_gone)
		rb_erase_fix(t, x, xp);
}

/* One in-order step from <n> towards side <dir>. */
static struct rb_node *rb_step(const struct rb_node *n, int dir)
{
	const struct rb_node *p;

	if (n->kid[dir]) {
		n = n->kid[dir];
		while (n->kid[!dir])
			n = n->kid[!dir];
		return (struct rb_node *)n;
	}
	while ((p = n->parent) && p->kid[dir] == n)
		n = p;
	return (struct rb_node *)p;
}

struct rb_node *rb_next(const struct rb_node *n)
{
	return rb_step(n, 1);
}

struct rb_node *rb_prev(const struct rb_node *n)
{
	return rb_step(n, 0);
}

/* Black height of the subtree at <n> (child of <parent>), -1 when broken; <depth> gets
 * the subtree's depth. Each node's parent link is checked before its children are
 * visited, so a link looping back up stops the walk instead of recursing forever. */
static int rb_check_sub(const struct rb_node *n, const struct rb_node *parent, int *depth)
{
	int bh[2], d[2];

	*depth = 0;
	if (!n)
		return 1;
	if (n->parent != parent || (n->red && rb_is_red(parent)) ||
	    (n->kid[0] && n->kid[0] == n->kid[1]))
		return -1;
	for (int k = 0; k < 2; k++) {
		bh[k] = rb_check_sub(n->kid[k], n, &d[k]);
		if (bh[k] < 0)
			return -1;
	}
	if (bh[0] != bh[1])
		return -1;
	*depth = 1 + (d[0] > d[1] ? d[0] : d[1]);
	return bh[0] + !n->red;
}

int rb_check(const struct rb_tree *t)
{
	const struct rb_node *f = t->root;
	int depth;

	while (f && f->kid[0])
		f = f->kid[0];
	if (f != t->first || rb_is_red(t->root))
		return -1;
	return rb_check_sub(t->root, NULL, &depth) < 0 ? -1 : depth;
}
