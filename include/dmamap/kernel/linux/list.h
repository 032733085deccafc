/* SPDX-License-Identifier: MIT */
/*
 * <linux/list.h> of Linux 6.x over libdmamap: the kernel's intrusive
 * circular doubly linked list (struct list_head, in <linux/types.h>) and the
 * list with a one-pointer head (struct hlist_head, struct hlist_node), as
 * drivers keep their pending requests, free descriptors and channels.
 *
 * A list is a head whose links point at itself when the list is empty; an
 * entry is a struct list_head embedded in the caller's structure, reached
 * back with list_entry() (container_of()). Nothing is allocated and nothing
 * locked: the caller owns every entry and serialises the calls on one list,
 * as in the kernel.
 *
 * As the kernel's, list_del() and hlist_del() poison the deleted entry's
 * links with LIST_POISON1 and LIST_POISON2 (<linux/poison.h>): addresses in
 * the never-mapped first page, so that code that follows a deleted entry's
 * links, or deletes it twice, dies of SIGSEGV right there (under ASan or
 * valgrind, with the faulting line) instead of corrupting the list. What the
 * kernel's CONFIG_DEBUG_LIST adds (checking the neighbours' links before
 * each change) is not done. The iterators are macros that use __typeof__,
 * as the kernel's use typeof, and compile in C and C++.
 */
#ifndef _LINUX_LIST_H
#define _LINUX_LIST_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <linux/poison.h>
#include <linux/container_of.h>

DMAMAP_BEGIN_DECLS

/* ------------------------------------------------------- struct list_head */

/*
 * LIST_HEAD_INIT() - the initialiser of the list head @name: empty, its
 * links pointing at itself. LIST_HEAD() - define the list head @name, empty.
 */
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

/**
 * INIT_LIST_HEAD() - make @list an empty list (or an entry on no list): both links point at itself
 * @list: the head or entry; whatever it was linked to is not touched
 */
static inline void INIT_LIST_HEAD(struct list_head *list)
{
	WRITE_ONCE(list->next, list);
	list->prev = list;
}

/** dmamap_list_insert() - link @entry between the adjacent entries @prev and @next. */
static inline void dmamap_list_insert(struct list_head *entry, struct list_head *prev, struct list_head *next)
{
	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	WRITE_ONCE(prev->next, entry);
}

/** dmamap_list_unlink() - join @prev and @next, dropping whatever lay between them. */
static inline void dmamap_list_unlink(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}

/**
 * list_add() - insert @entry right after @head: at the front of the list (a stack)
 * @entry: an entry on no list (its links are overwritten)
 * @head: the list's head, or an entry to insert after
 */
static inline void list_add(struct list_head *entry, struct list_head *head)
{
	dmamap_list_insert(entry, head, head->next);
}

/**
 * list_add_tail() - insert @entry right before @head: at the back of the list (a queue)
 * @entry: an entry on no list (its links are overwritten)
 * @head: the list's head, or an entry to insert before
 */
static inline void list_add_tail(struct list_head *entry, struct list_head *head)
{
	dmamap_list_insert(entry, head->prev, head);
}

/**
 * list_del() - take @entry off its list and poison its links
 * @entry: an entry on a list
 *
 * Afterwards entry->next is LIST_POISON1 and entry->prev LIST_POISON2:
 * list_empty(), a walk from @entry or a second list_del() of it fault. Use
 * list_del_init() for an entry that is looked at again.
 */
static inline void list_del(struct list_head *entry)
{
	dmamap_list_unlink(entry->prev, entry->next);
	entry->next = (struct list_head *)LIST_POISON1;
	entry->prev = (struct list_head *)LIST_POISON2;
}

/**
 * list_del_init() - take @entry off its list and make it an empty list of its own
 * @entry: an entry on a list, or one list_del_init() already took off (then nothing changes)
 *
 * list_empty(@entry) is then true, and it may be deleted or added again.
 */
static inline void list_del_init(struct list_head *entry)
{
	dmamap_list_unlink(entry->prev, entry->next);
	INIT_LIST_HEAD(entry);
}

/**
 * list_replace() - put @new in @old's place on its list
 * @old: an entry on a list; its links are left as they were (stale)
 * @new: an entry on no list
 */
static inline void list_replace(struct list_head *old, struct list_head *new_entry)
{
	new_entry->next = old->next;
	new_entry->next->prev = new_entry;
	new_entry->prev = old->prev;
	new_entry->prev->next = new_entry;
}

/** list_replace_init() - list_replace(), then @old made an empty list of its own. */
static inline void list_replace_init(struct list_head *old, struct list_head *new_entry)
{
	list_replace(old, new_entry);
	INIT_LIST_HEAD(old);
}

/**
 * list_move() - take @entry off its list and insert it after @head
 * @entry: an entry on a list (the same list or another)
 * @head: where it goes: after it, at the front of @head's list
 */
static inline void list_move(struct list_head *entry, struct list_head *head)
{
	dmamap_list_unlink(entry->prev, entry->next);
	list_add(entry, head);
}

/**
 * list_move_tail() - take @entry off its list and insert it before @head
 * @entry: an entry on a list (the same list or another)
 * @head: where it goes: before it, at the back of @head's list
 */
static inline void list_move_tail(struct list_head *entry, struct list_head *head)
{
	dmamap_list_unlink(entry->prev, entry->next);
	list_add_tail(entry, head);
}

/** list_is_first() - whether @entry is the first entry of the list @head. */
static inline int list_is_first(const struct list_head *entry, const struct list_head *head)
{
	return entry->prev == head;
}

/** list_is_last() - whether @entry is the last entry of the list @head. */
static inline int list_is_last(const struct list_head *entry, const struct list_head *head)
{
	return entry->next == head;
}

/** list_is_head() - whether @entry is @head itself (where a walk of the list ends). */
static inline int list_is_head(const struct list_head *entry, const struct list_head *head)
{
	return entry == head;
}

/**
 * list_empty() - whether the list @head has no entry
 * @head: a list head, or an entry list_del_init() took off (true); an entry
 *        list_del() poisoned faults
 */
static inline int list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

/** list_is_singular() - whether the list @head has exactly one entry. */
static inline int list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

/** list_rotate_left() - move the first entry of the list @head to its back (nothing for an empty list). */
static inline void list_rotate_left(struct list_head *head)
{
	if (!list_empty(head))
		list_move_tail(head->next, head);
}

/**
 * list_count_nodes() - the number of entries on the list @head, walking it
 * @head: the list's head
 *
 * Return: 0 for an empty list.
 */
static inline size_t list_count_nodes(const struct list_head *head)
{
	size_t n = 0;

	for (const struct list_head *p = head->next; p != head; p = p->next)
		n++;
	return n;
}

/** dmamap_list_join() - link the entries of the non-empty @list between @prev and @next (@list untouched). */
static inline void dmamap_list_join(const struct list_head *list, struct list_head *prev, struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/**
 * list_splice() - insert the entries of @list at the front of @head, in their order
 * @list: the list whose entries move; its head is left stale (list_splice_init() empties it)
 * @head: where they go: after it
 */
static inline void list_splice(const struct list_head *list, struct list_head *head)
{
	if (!list_empty(list))
		dmamap_list_join(list, head, head->next);
}

/**
 * list_splice_tail() - insert the entries of @list at the back of @head, in their order
 * @list: the list whose entries move; its head is left stale (list_splice_tail_init() empties it)
 * @head: where they go: before it
 */
static inline void list_splice_tail(const struct list_head *list, struct list_head *head)
{
	if (!list_empty(list))
		dmamap_list_join(list, head->prev, head);
}

/** list_splice_init() - list_splice(), then @list made empty. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		dmamap_list_join(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

/** list_splice_tail_init() - list_splice_tail(), then @list made empty. */
static inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		dmamap_list_join(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

/**
 * list_cut_position() - move the entries of @head up to @entry (included) to @list
 * @list: an empty list, or one whose entries may be dropped: it is overwritten
 * @head: the list to cut
 * @entry: an entry of @head, or @head itself (then @list is made empty)
 */
static inline void list_cut_position(struct list_head *list, struct list_head *head, struct list_head *entry)
{
	if (list_empty(head) || (list_is_singular(head) && head->next != entry && head != entry))
		return;
	if (entry == head) {
		INIT_LIST_HEAD(list);
		return;
	}
	list->next = head->next;
	list->next->prev = list;
	list->prev = entry;
	head->next = entry->next;
	head->next->prev = head;
	entry->next = list;
}

/*
 * list_entry() - the structure of type @type whose member @member is the
 * list_head @ptr. list_first_entry() and list_last_entry() - the first and
 * last entries of the list @ptr, which must not be empty (for an empty list
 * they give the head itself, cast: garbage); list_first_entry_or_null() and
 * list_last_entry_or_null() - NULL for an empty list. list_next_entry() and
 * list_prev_entry() - the entry after and before @pos on its list (the head,
 * cast, past the ends: see list_entry_is_head()); the _circular forms skip
 * the head, wrapping around to the other end. list_entry_is_head() - whether
 * @pos, an entry pointer a walk produced, is in fact the head @head.
 */
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member) \
	DMAMAP_LIST_END_OR_NULL_(ptr, type, member, next, DMAMAP_UNIQUE(dmamap_h_), DMAMAP_UNIQUE(dmamap_p_))
#define list_last_entry_or_null(ptr, type, member) \
	DMAMAP_LIST_END_OR_NULL_(ptr, type, member, prev, DMAMAP_UNIQUE(dmamap_h_), DMAMAP_UNIQUE(dmamap_p_))
#define DMAMAP_LIST_END_OR_NULL_(ptr, type, member, link, h, p)              \
	__extension__({                                                      \
		struct list_head *h = (ptr);                                 \
		struct list_head *p = READ_ONCE(h->link);                    \
		p != h ? list_entry(p, type, member) : (type *)NULL;         \
	})
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) list_entry((pos)->member.prev, __typeof__(*(pos)), member)
#define list_next_entry_circular(pos, head, member) \
	(list_is_last(&(pos)->member, head) ? list_first_entry(head, __typeof__(*(pos)), member) : list_next_entry(pos, member))
#define list_prev_entry_circular(pos, head, member) \
	(list_is_first(&(pos)->member, head) ? list_last_entry(head, __typeof__(*(pos)), member) : list_prev_entry(pos, member))
#define list_entry_is_head(pos, head, member) (&(pos)->member == (head))

/*
 * list_for_each() - walk the list @head front to back, @pos (a struct
 * list_head *) at each entry; list_for_each_prev() back to front. The
 * entry at @pos must stay on the list until the next step: to delete
 * entries while walking, use the _safe forms, which keep the next entry in
 * @n (another struct list_head *) beforehand. After a walk that ran to its
 * end, @pos is @head.
 */
#define list_for_each(pos, head) for (pos = (head)->next; !list_is_head(pos, (head)); pos = pos->next)
#define list_for_each_prev(pos, head) for (pos = (head)->prev; !list_is_head(pos, (head)); pos = pos->prev)
#define list_for_each_safe(pos, n, head) \
	for (pos = (head)->next, n = pos->next; !list_is_head(pos, (head)); pos = n, n = pos->next)
#define list_for_each_prev_safe(pos, n, head) \
	for (pos = (head)->prev, n = pos->prev; !list_is_head(pos, (head)); pos = n, n = pos->prev)

/**
 * dmamap_list_opaque() - @p, through a barrier the compiler cannot see across
 * @p: the head of a list, which list_prepare_entry() casts to an entry pointer
 *
 * So that gcc does not take that pointer, which lies before the head, and
 * the walk that continues from it for an access out of the head's bounds
 * (-Warray-bounds): the walk reads the head's own link only.
 */
static inline void *dmamap_list_opaque(void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

/*
 * list_for_each_entry() - walk the list @head front to back, @pos (a pointer
 * to the entries' structure) at each entry, @member the name of the
 * struct list_head in it; list_for_each_entry_reverse() back to front. The
 * _continue forms start after @pos, the _from forms at @pos (each going on
 * in its direction); list_prepare_entry() gives a @pos to continue from:
 * @pos, or the head when @pos is NULL. The _safe forms keep the next entry
 * in @n (a pointer of @pos's type), so the body may delete or move the
 * entry at @pos (not the one at @n); list_safe_reset_next() reloads @n
 * after the body changed the list around @pos. After a walk that ran to its
 * end, @pos is the head cast to the entry type: test list_entry_is_head(),
 * never dereference it.
 */
#define list_for_each_entry(pos, head, member)                                   \
	for (pos = list_first_entry(head, __typeof__(*(pos)), member);          \
	     !list_entry_is_head(pos, head, member); pos = list_next_entry(pos, member))
#define list_for_each_entry_reverse(pos, head, member)                           \
	for (pos = list_last_entry(head, __typeof__(*(pos)), member);           \
	     !list_entry_is_head(pos, head, member); pos = list_prev_entry(pos, member))
#define list_prepare_entry(pos, head, member) \
	((pos) ? (pos) : list_entry((struct list_head *)dmamap_list_opaque((void *)(head)), __typeof__(*(pos)), member))
#define list_for_each_entry_continue(pos, head, member)                          \
	for (pos = list_next_entry(pos, member); !list_entry_is_head(pos, head, member); \
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_continue_reverse(pos, head, member)                  \
	for (pos = list_prev_entry(pos, member); !list_entry_is_head(pos, head, member); \
	     pos = list_prev_entry(pos, member))
#define list_for_each_entry_from(pos, head, member) \
	for (; !list_entry_is_head(pos, head, member); pos = list_next_entry(pos, member))
#define list_for_each_entry_from_reverse(pos, head, member) \
	for (; !list_entry_is_head(pos, head, member); pos = list_prev_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)                           \
	for (pos = list_first_entry(head, __typeof__(*(pos)), member), n = list_next_entry(pos, member); \
	     !list_entry_is_head(pos, head, member); pos = n, n = list_next_entry(n, member))
#define list_for_each_entry_safe_continue(pos, n, head, member)                  \
	for (pos = list_next_entry(pos, member), n = list_next_entry(pos, member); \
	     !list_entry_is_head(pos, head, member); pos = n, n = list_next_entry(n, member))
#define list_for_each_entry_safe_from(pos, n, head, member)                      \
	for (n = list_next_entry(pos, member); !list_entry_is_head(pos, head, member); \
	     pos = n, n = list_next_entry(n, member))
#define list_for_each_entry_safe_reverse(pos, n, head, member)                   \
	for (pos = list_last_entry(head, __typeof__(*(pos)), member), n = list_prev_entry(pos, member); \
	     !list_entry_is_head(pos, head, member); pos = n, n = list_prev_entry(n, member))
#define list_safe_reset_next(pos, n, member) n = list_next_entry(pos, member)

/* ------------------------------------------------------ struct hlist_head */

/*
 * HLIST_HEAD_INIT - the initialiser of an empty struct hlist_head;
 * HLIST_HEAD() - define the empty head @name; INIT_HLIST_HEAD() - make the
 * head @ptr empty.
 */
#define HLIST_HEAD_INIT { NULL }
#define HLIST_HEAD(name) struct hlist_head name = { NULL }
#define INIT_HLIST_HEAD(ptr) ((ptr)->first = NULL)

/** INIT_HLIST_NODE() - make @h a node on no list: hlist_unhashed() is then true. */
static inline void INIT_HLIST_NODE(struct hlist_node *h)
{
	h->next = NULL;
	h->pprev = NULL;
}

/** hlist_unhashed() - whether @h is on no list (initialised, or taken off by hlist_del_init()). */
static inline int hlist_unhashed(const struct hlist_node *h)
{
	return !h->pprev;
}

/** hlist_empty() - whether the list @h has no node. */
static inline int hlist_empty(const struct hlist_head *h)
{
	return !READ_ONCE(h->first);
}

/** dmamap_hlist_unlink() - take @n off its list, its own links left as they were. */
static inline void dmamap_hlist_unlink(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	struct hlist_node **pprev = n->pprev;

	WRITE_ONCE(*pprev, next);
	if (next)
		next->pprev = pprev;
}

/**
 * hlist_del() - take @n off its list and poison its links
 * @n: a node on a list
 *
 * Afterwards n->next is LIST_POISON1 and n->pprev LIST_POISON2, as
 * list_del() leaves an entry: following them, or deleting @n again, faults.
 */
static inline void hlist_del(struct hlist_node *n)
{
	dmamap_hlist_unlink(n);
	n->next = (struct hlist_node *)LIST_POISON1;
	n->pprev = (struct hlist_node **)LIST_POISON2;
}

/** hlist_del_init() - take @n off its list if it is on one, and make it a node on no list. */
static inline void hlist_del_init(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		dmamap_hlist_unlink(n);
		INIT_HLIST_NODE(n);
	}
}

/** hlist_add_head() - insert @n, a node on no list, at the front of the list @h. */
static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	if (first)
		first->pprev = &n->next;
	WRITE_ONCE(h->first, n);
	n->pprev = &h->first;
}

/** hlist_add_before() - insert @n, a node on no list, right before @next, a node on a list. */
static inline void hlist_add_before(struct hlist_node *n, struct hlist_node *next)
{
	n->pprev = next->pprev;
	n->next = next;
	next->pprev = &n->next;
	WRITE_ONCE(*(n->pprev), n);
}

/** hlist_add_behind() - insert @n, a node on no list, right after @prev, a node on a list. */
static inline void hlist_add_behind(struct hlist_node *n, struct hlist_node *prev)
{
	n->next = prev->next;
	WRITE_ONCE(prev->next, n);
	n->pprev = &prev->next;
	if (n->next)
		n->next->pprev = &n->next;
}

/** hlist_count_nodes() - the number of nodes on the list @head, walking it. */
static inline size_t hlist_count_nodes(const struct hlist_head *head)
{
	size_t n = 0;

	for (const struct hlist_node *p = head->first; p; p = p->next)
		n++;
	return n;
}

/*
 * hlist_entry() - the structure of type @type whose member @member is the
 * node @ptr; hlist_entry_safe() - the same, NULL for a NULL @ptr (evaluated
 * once). hlist_for_each() - walk the list @head, @pos (a struct hlist_node *)
 * at each node; hlist_for_each_entry() with @pos a pointer to the nodes'
 * structure. The _safe forms keep the next node in @n (a struct hlist_node *)
 * so the body may delete the node at @pos. At the end of a walk @pos is NULL.
 */
#define hlist_entry(ptr, type, member) container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) DMAMAP_HLIST_ENTRY_SAFE_(ptr, type, member, DMAMAP_UNIQUE(dmamap_n_))
#define DMAMAP_HLIST_ENTRY_SAFE_(ptr, type, member, n)             \
	__extension__({                                            \
		__typeof__(ptr) n = (ptr);                         \
		n ? hlist_entry(n, type, member) : (type *)NULL;   \
	})
#define hlist_for_each(pos, head) for (pos = (head)->first; pos; pos = pos->next)
#define hlist_for_each_safe(pos, n, head) for (pos = (head)->first; pos && ((n = pos->next), 1); pos = n)
#define hlist_for_each_entry(pos, head, member)                                         \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); pos;   \
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))
#define hlist_for_each_entry_safe(pos, n, head, member)                                 \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member);        \
	     pos && ((n = (pos)->member.next), 1); pos = hlist_entry_safe(n, __typeof__(*(pos)), member))

DMAMAP_END_DECLS

#endif /* _LINUX_LIST_H */
