/* Circular doubly-linked lists embedded in their owners (kernel style). Not thread-safe:
 * each list is owned by one thread or protected by its owner's rules.
 */
#ifndef BASE_LIST_H
#define BASE_LIST_H

#include <stdbool.h>
#include <base/compiler.h>

struct list {
	struct list *next, *prev;
};

#define LIST_HEAD_INIT(l) { &(l), &(l) }

static inline void list_init(struct list *l)
{
	l->next = l->prev = l;
}

static inline bool list_empty(const struct list *l)
{
	return l->next == l;
}

/* Inserts <el> after <head> (at the front). */
static inline void list_insert(struct list *head, struct list *el)
{
	el->next = head->next;
	el->prev = head;
	head->next->prev = el;
	head->next = el;
}

/* Appends <el> before <head> (at the tail). */
static inline void list_append(struct list *head, struct list *el)
{
	el->prev = head->prev;
	el->next = head;
	head->prev->next = el;
	head->prev = el;
}

/* Unlinks <el> and leaves it self-linked so that a second delete is harmless. */
static inline void list_delete(struct list *el)
{
	el->prev->next = el->next;
	el->next->prev = el->prev;
	el->next = el->prev = el;
}

#define list_elem(l, type, member) container_of(l, type, member)

#define list_for_each_entry(pos, head, member)                                        \
	for (pos = list_elem((head)->next, __typeof__(*pos), member); &pos->member != (head); \
	     pos = list_elem(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, tmp, head, member)                              \
	for (pos = list_elem((head)->next, __typeof__(*pos), member),                   \
	    tmp = list_elem(pos->member.next, __typeof__(*pos), member);                 \
	     &pos->member != (head);                                                      \
	     pos = tmp, tmp = list_elem(tmp->member.next, __typeof__(*pos), member))

#endif
