/* Intrusive red-black tree (rbtree.c): O(log n) insertion and removal of any node, O(1)
 * access to the smallest one. The tree knows no keys: the caller descends to the place of
 * a new node, comparing its own keys (see rb_insert_at), so that equal keys keep whatever
 * order the caller chooses, e.g. arrival order. Not thread-safe: the owner locks.
 */
#ifndef BASE_RBTREE_H
#define BASE_RBTREE_H

#include <stddef.h>
#include <base/rbtree-t.h>

static inline void rb_init(struct rb_tree *t)
{
	t->root = t->first = NULL;
}

static inline bool rb_empty(const struct rb_tree *t)
{
	return !t->root;
}

/* The smallest node of <t>, NULL when empty. O(1). */
static inline struct rb_node *rb_first(const struct rb_tree *t)
{
	return t->first;
}

/* Links <n> as the child <dir> (0: smaller side, 1: greater side) of <parent>, which has
 * no such child (NULL parent: <t> is empty), then rebalances. The caller finds <parent>
 * and <dir> by descending from t->root, going to kid[1] past every node that must stay
 * before <n> and to kid[0] otherwise, until the child to follow is NULL. */
void rb_insert_at(struct rb_tree *t, struct rb_node *n, struct rb_node *parent, int dir);

/* Unlinks <n>, a node of <t>, and rebalances. O(log n). */
void rb_erase(struct rb_tree *t, struct rb_node *n);

/* The node after (rb_next) or before (rb_prev) <n> in order, NULL at the end. */
struct rb_node *rb_next(const struct rb_node *n);
struct rb_node *rb_prev(const struct rb_node *n);

/* Checks the tree's invariants (links, colours, equal black heights, cached first):
 * returns its depth (the longest path from the root, in nodes; 0 when empty), or -1 when
 * an invariant is broken. O(n): for tests. */
int rb_check(const struct rb_tree *t);

#endif
