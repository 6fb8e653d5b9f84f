/* Types of the intrusive red-black tree (rbtree.c): a node embedded in its owner, and a
 * tree that also keeps its smallest node for O(1) access to the minimum.
 */
#ifndef BASE_RBTREE_T_H
#define BASE_RBTREE_T_H

#include <stdbool.h>

struct rb_node {
	struct rb_node *parent; /* NULL for the root */
	struct rb_node *kid[2]; /* [0] smaller side, [1] greater side, NULL when none */
	bool red;
};

struct rb_tree {
	struct rb_node *root;  /* NULL when empty */
	struct rb_node *first; /* leftmost node (the smallest), NULL when empty */
};

#endif
