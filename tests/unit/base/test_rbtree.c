/* Unit tests of the intrusive red-black tree (base/rbtree.c) against a brute-force model:
 * a sorted array receiving the same random insertions (ties after the equal keys, or
 * before them) and removals of any node; after each step the tree's invariants, its depth
 * bound, its order both ways and its cached first node are checked.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <base/compiler.h>
#include <base/rbtree.h>
#include "../test.h"

#define RBT_N 600

struct rbt_item {
	struct rb_node node;
	unsigned int key;
	bool in;
};

static struct rbt_item rbt_items[RBT_N];
static int rbt_model[RBT_N], rbt_len; /* indexes of the items in the tree, in order */
static uint64_t rbt_rng = 88172645463325252ULL;

static unsigned int rbt_rand(unsigned int n)
{
	rbt_rng ^= rbt_rng << 13;
	rbt_rng ^= rbt_rng >> 7;
	rbt_rng ^= rbt_rng << 17;
	return (unsigned int)(rbt_rng % n);
}

#define RBT_KEY(n) (container_of((n), struct rbt_item, node)->key)

/* Inserts item <i> with <key>, after the items of an equal key, or before them with
 * <first>, in the tree (descending as rb_insert_at says) and in the model. */
static void rbt_insert(struct rb_tree *t, int i, unsigned int key, bool first)
{
	struct rb_node *parent = NULL, *at = t->root;
	int dir = 0, pos = 0;

	rbt_items[i].key = key;
	rbt_items[i].in = true;
	while (at) {
		parent = at;
		dir = RBT_KEY(at) < key || (RBT_KEY(at) == key && !first);
		at = at->kid[dir];
	}
	rb_insert_at(t, &rbt_items[i].node, parent, dir);
	while (pos < rbt_len && (rbt_items[rbt_model[pos]].key < key ||
				 (rbt_items[rbt_model[pos]].key == key && !first)))
		pos++;
	memmove(&rbt_model[pos + 1], &rbt_model[pos], sizeof(int) * (size_t)(rbt_len - pos));
	rbt_model[pos] = i;
	rbt_len++;
}

/* Removes the model's item at <pos> from both. */
static void rbt_erase(struct rb_tree *t, int pos)
{
	int i = rbt_model[pos];

	rb_erase(t, &rbt_items[i].node);
	rbt_items[i].in = false;
	memmove(&rbt_model[pos], &rbt_model[pos + 1], sizeof(int) * (size_t)(rbt_len - pos - 1));
	rbt_len--;
}

/* The tree matches the model: invariants, depth <= 2 log2(n + 1), order both ways. */
static bool rbt_matches(const struct rb_tree *t)
{
	int depth = rb_check(t), k = 0;
	const struct rb_node *n;

	if (depth < 0 || depth > 2 * log2(rbt_len + 1) + 1e-9)
		return false;
	if (rb_empty(t) != (rbt_len == 0))
		return false;
	for (n = rb_first(t); n; n = rb_next(n), k++)
		if (k >= rbt_len || n != &rbt_items[rbt_model[k]].node)
			return false;
	if (k != rbt_len)
		return false;
	n = t->root;
	while (n && n->kid[1])
		n = n->kid[1];
	for (k = rbt_len - 1; n; n = rb_prev(n), k--)
		if (k < 0 || n != &rbt_items[rbt_model[k]].node)
			return false;
	return k == -1;
}

/* Random insertions and removals, keys from a range of <keys> values (small: many ties). */
static void rbt_random(unsigned int keys, int steps)
{
	struct rb_tree t;

	rb_init(&t);
	rbt_len = 0;
	memset(rbt_items, 0, sizeof(rbt_items));
	for (int s = 0; s < steps; s++) {
		/* grow to about half of RBT_N, then hover around it */
		bool grow = rbt_rand(RBT_N) >= (unsigned int)rbt_len;

		if (grow) {
			int i = (int)rbt_rand(RBT_N);

			while (rbt_items[i].in)
				i = (i + 1) % RBT_N;
			rbt_insert(&t, i, rbt_rand(keys), rbt_rand(8) == 0);
		} else {
			/* often the smallest, as a queue would take it */
			rbt_erase(&t, rbt_rand(4) ? (int)rbt_rand((unsigned int)rbt_len) : 0);
		}
		if (!rbt_matches(&t)) {
			test_fail(__FILE__, __LINE__, "keys %u, step %d: tree and model differ",
				  keys, s);
			return;
		}
	}
	while (rbt_len)
		rbt_erase(&t, (int)rbt_rand((unsigned int)rbt_len));
	CHECK(rbt_matches(&t));
	CHECK(t.root == NULL && t.first == NULL);
}

TEST(rbtree_random_against_model)
{
	rbt_random(4, 6000); /* mostly ties: their order is the caller's */
	rbt_random(64, 6000);
	rbt_random(1u << 30, 6000); /* nearly all distinct */
}

/* Sorted input, the worst case of an unbalanced tree, stays within the depth bound. */
TEST(rbtree_sorted_input_stays_balanced)
{
	struct rb_tree t;

	for (int order = 0; order < 2; order++) {
		rb_init(&t);
		rbt_len = 0;
		memset(rbt_items, 0, sizeof(rbt_items));
		for (int i = 0; i < RBT_N; i++)
			rbt_insert(&t, i, order ? (unsigned int)(RBT_N - i) : (unsigned int)i,
				   false);
		CHECK(rbt_matches(&t));
		CHECK(rb_check(&t) <= 2 * 10); /* log2(601) < 10 */
		CHECK(RBT_KEY(rb_first(&t)) == (order ? 1u : 0u));
		while (rbt_len) { /* take the smallest each time */
			rbt_erase(&t, 0);
			if (!rbt_matches(&t)) {
				test_fail(__FILE__, __LINE__, "popping: tree and model differ");
				break;
			}
		}
	}
}

TEST(rbtree_equal_keys_keep_the_callers_order)
{
	struct rb_tree t;
	static const int want[] = { 4, 3, 0, 1, 2, 5 };
	int k = 0;

	rb_init(&t);
	rbt_len = 0;
	memset(rbt_items, 0, sizeof(rbt_items));
	rbt_insert(&t, 0, 7, false);
	rbt_insert(&t, 1, 7, false);
	rbt_insert(&t, 2, 7, false);
	rbt_insert(&t, 3, 7, true); /* before the equal ones */
	rbt_insert(&t, 4, 7, true);
	rbt_insert(&t, 5, 8, true);
	for (const struct rb_node *n = rb_first(&t); n && k < 6; n = rb_next(n), k++)
		CHECK(n == &rbt_items[want[k]].node);
	CHECK_INT(k, 6);
	CHECK(rbt_matches(&t));
}
