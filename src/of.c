/* SPDX-License-Identifier: MIT */
/*
 * Device-tree nodes the test gives its devices (and their children, and
 * the machine's nodes they refer to by phandle), and the kernel's readers
 * and walkers of them (<dmamap/of.h>). A node and everything it holds is
 * one allocation: the node, its properties, then its names and values,
 * laid out as a flattened device tree stores them, then the phandles it
 * refers to. References drivers take to nodes are counted, each with the
 * line that took it, and reported when never given back.
 */
#include <limits.h>
#include <strings.h>

#include "internal.h"

#define DM_OF_NODE_MAGIC 0x6f665f6e6f6465UL

/*
 * The live nodes of the process, and the references drivers hold to them,
 * each with the line that took it. One lock guards both lists, the
 * phandle counter, and the links of the trees.
 */
struct of_ref {
	struct of_ref *next;
	struct device_node *np;
	struct device *dev; /* whose unbind reports it: the device of the tree the walk started in */
	const char *file;
	int line;
};

static pthread_mutex_t of_lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_node *live_nodes;
static struct of_ref *live_refs;
static phandle last_phandle;

/* Whether @np is a live node. Under of_lock. */
static bool node_live(const struct device_node *np)
{
	for (const struct device_node *l = live_nodes; l; l = l->dmamap.next)
		if (l == np)
			return true;
	return false;
}

/* The live node of @m with phandle @ph, or NULL. Under of_lock. */
static struct device_node *node_by_phandle(const struct dmamap_machine *m, phandle ph)
{
	for (struct device_node *l = live_nodes; ph && l; l = l->dmamap.next)
		if (l->phandle == ph && l->dmamap.machine == m)
			return l;
	return NULL;
}

/* The references of entry @e, @n of them. */
static const struct software_node_ref_args *entry_refs(const struct property_entry *e, size_t *n)
{
	*n = e->length / sizeof(struct software_node_ref_args);
	return e->pointer;
}

/*
 * How many bytes the device tree stores for entry @e, or -1 when @e cannot
 * be stored (@why says why). References must be to live nodes of @m. Under
 * of_lock.
 */
static long entry_bytes(const struct dmamap_machine *m, const struct property_entry *e, const char **why)
{
	static const size_t width[] = { [DEV_PROP_U8] = 1, [DEV_PROP_U16] = 2, [DEV_PROP_U32] = 4, [DEV_PROP_U64] = 8 };
	const char *const *strs;
	size_t n, bytes = 0;

	if (!e->name[0])
		return *why = "a property without a name", -1;
	if (!e->length)
		return 0; /* a boolean, whatever its type */
	if (e->type > DEV_PROP_REF)
		return *why = "an unknown type", -1;
	if (e->is_inline && (e->length > sizeof(e->value) || e->type == DEV_PROP_REF))
		return *why = "more inline bytes than an entry holds", -1;
	if (!e->is_inline && !e->pointer)
		return *why = "values at a NULL pointer", -1;
	if (e->type == DEV_PROP_REF) {
		const struct software_node_ref_args *r = entry_refs(e, &n);

		if (e->length % sizeof(*r))
			return *why = "a length that is no whole number of references", -1;
		for (size_t i = 0; i < n; i++) {
			if (!r[i].node || !node_live(r[i].node))
				return *why = "a reference to no live node", -1;
			if (r[i].node->dmamap.machine != m)
				return *why = "a reference to a node of another machine", -1;
			if (r[i].nargs > NR_FWNODE_REFERENCE_ARGS)
				return *why = "more arguments than a reference holds", -1;
			for (unsigned int a = 0; a < r[i].nargs; a++)
				if (r[i].args[a] > UINT32_MAX)
					return *why = "an argument wider than a cell", -1;
			bytes += 4 * (1 + (size_t)r[i].nargs);
		}
		return bytes > INT_MAX ? (*why = "too long a value", -1) : (long)bytes;
	}
	if (e->type != DEV_PROP_STRING) {
		if (e->length % width[e->type])
			return *why = "a length that is no whole number of values", -1;
		return e->length > INT_MAX ? (*why = "too long a value", -1) : (long)e->length;
	}
	if (e->length % sizeof(char *))
		return *why = "a length that is no whole number of strings", -1;
	strs = e->is_inline ? e->value.str : (const char *const *)e->pointer;
	for (n = 0; n < e->length / sizeof(char *); n++) {
		if (!strs[n])
			return *why = "a NULL string", -1;
		bytes += strlen(strs[n]) + 1;
		if (bytes > INT_MAX)
			return *why = "too long a value", -1;
	}
	return (long)bytes;
}

/* Store @v big-endian in @w bytes at @dst. */
static void be_store(u8 *dst, u64 v, size_t w)
{
	for (size_t b = 0; b < w; b++)
		dst[b] = (u8)(v >> (8 * (w - 1 - b)));
}

/* Store @e's values at @dst as the device tree does: big-endian numbers, NUL-ended strings, phandle lists. */
static void entry_store(const struct property_entry *e, u8 *dst)
{
	const void *src = e->is_inline ? (const void *)&e->value : e->pointer;
	size_t n;

	switch (e->type) {
	case DEV_PROP_U8:
		memcpy(dst, src, e->length);
		break;
	case DEV_PROP_U16:
		for (n = 0; n < e->length / 2; n++)
			be_store(dst + 2 * n, ((const u16 *)src)[n], 2);
		break;
	case DEV_PROP_U32:
	case DEV_PROP_U64: {
		size_t w = e->type == DEV_PROP_U32 ? 4 : 8;

		for (n = 0; n < e->length / w; n++)
			be_store(dst + n * w, w == 4 ? ((const u32 *)src)[n] : ((const u64 *)src)[n], w);
		break;
	}
	case DEV_PROP_REF: {
		const struct software_node_ref_args *r = entry_refs(e, &n);

		for (size_t i = 0; i < n; i++) {
			be_store(dst, r[i].node->phandle, 4);
			dst += 4;
			for (unsigned int a = 0; a < r[i].nargs; a++, dst += 4)
				be_store(dst, r[i].args[a], 4);
		}
		break;
	}
	default:
		for (n = 0; n < e->length / sizeof(char *); n++) {
			const char *s = ((const char *const *)src)[n];
			size_t len = strlen(s) + 1;

			memcpy(dst, s, len);
			dst += len;
		}
		break;
	}
}

/* The device whose tree @np is in, for a report: its name, or NULL for a machine's node. */
static const char *node_devname(const struct device_node *np)
{
	return np->dmamap.dev ? dev_name(np->dmamap.dev) : NULL;
}

/*
 * Drop the references held to @np, each reported as a leak at the line
 * that took it: @np is going. Under of_lock.
 */
static void refs_drop(struct device_node *np)
{
	for (struct of_ref **pp = &live_refs; *pp;) {
		struct of_ref *r = *pp;

		if (r->np != np) {
			pp = &r->next;
			continue;
		}
		dmamap_report(np->dmamap.machine, DMAMAP_REPORT_LEAK, r->dev ? dev_name(r->dev) : node_devname(np),
			      r->file, r->line, "device-tree node %s freed with a reference never put (of_node_put())",
			      np->full_name);
		*pp = r->next;
		dmamap_free(r);
	}
}

/* Free @np, its children and their references. Under of_lock. */
static void tree_free(struct device_node *np)
{
	struct device_node *c = np->child;

	while (c) {
		struct device_node *next = c->sibling;

		tree_free(c);
		c = next;
	}
	refs_drop(np);
	for (struct device_node **pp = &live_nodes; *pp; pp = &(*pp)->dmamap.next) {
		if (*pp == np) {
			*pp = np->dmamap.next;
			break;
		}
	}
	np->dmamap.magic = 0;
	dmamap_free(np);
}

/* Free the node dmamap_device_set_of_node() gave @dev, its children, and the device's pointers to it. */
void dmamap_of_node_free(struct device *dev)
{
	struct device_node *np = dev->dmamap.of_node;

	if (!np)
		return;
	if (dev->of_node == np)
		dev->of_node = NULL;
	if (dev->fwnode == &np->fwnode)
		dev->fwnode = NULL;
	dev->dmamap.of_node = NULL;
	pthread_mutex_lock(&of_lock);
	tree_free(np);
	pthread_mutex_unlock(&of_lock);
}

#define OF_ALIGN(x) (((x) + 7) & ~(size_t)7)

/*
 * A node of @m named @full_name with @props, of the tree of @dev (NULL: a
 * machine's), not yet linked: NULL with *@err set, bad input reported as
 * @who's. Under of_lock.
 */
static struct device_node *node_build(struct dmamap_machine *m, struct device *dev, const char *full_name,
				      const struct property_entry *props, const char *who, int *err)
{
	const char *devname = dev ? dev_name(dev) : NULL;
	struct device_node *np;
	struct property *pp;
	size_t nprops = 0, ntargets = 0, size, name_len;
	const char *why = NULL;
	u32 *targets;
	char *p;

	*err = -EINVAL;
	name_len = full_name ? strlen(full_name) : 0;
	if (!name_len) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, devname, NULL, 0, "%s: %s", who,
			      full_name ? "empty node name" : "NULL node name");
		return NULL;
	}
	size = OF_ALIGN(sizeof(*np)) + OF_ALIGN(name_len + 1) * 2;
	for (const struct property_entry *e = props; e && e->name; e++, nprops++) {
		long bytes = entry_bytes(m, e, &why);

		for (const struct property_entry *f = props; !why && f < e; f++)
			if (!strcmp(f->name, e->name))
				why = "a name given twice";
		if (why) {
			dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, devname, NULL, 0, "%s: property %zu (\"%s\") of %s: %s",
				      who, nprops, e->name, full_name, why);
			return NULL;
		}
		if (e->type == DEV_PROP_REF && e->length)
			ntargets += e->length / sizeof(struct software_node_ref_args);
		size += sizeof(*pp) + OF_ALIGN(strlen(e->name) + 1) + OF_ALIGN((size_t)bytes);
	}
	size += OF_ALIGN(ntargets * sizeof(u32));

	*err = -ENOMEM;
	np = dmamap_zalloc(m, size);
	if (!np)
		return NULL;
	pp = (struct property *)((char *)np + OF_ALIGN(sizeof(*np)));
	p = (char *)(pp + nprops);
	np->full_name = memcpy(p, full_name, name_len + 1);
	p += OF_ALIGN(name_len + 1);
	np->name = p;
	memcpy(p, full_name, strcspn(full_name, "@"));
	p += OF_ALIGN(name_len + 1);
	targets = (u32 *)p;
	p += OF_ALIGN(ntargets * sizeof(u32));
	np->dmamap.targets = targets;
	for (size_t i = 0; i < nprops; i++) {
		const struct property_entry *e = &props[i];
		long bytes = entry_bytes(m, e, &why);

		pp[i].name = memcpy(p, e->name, strlen(e->name) + 1);
		p += OF_ALIGN(strlen(e->name) + 1);
		pp[i].length = (int)bytes;
		if (bytes) {
			pp[i].value = p;
			entry_store(e, (u8 *)p);
			p += OF_ALIGN((size_t)bytes);
		}
		if (e->type == DEV_PROP_REF && bytes) {
			size_t n;
			const struct software_node_ref_args *r = entry_refs(e, &n);

			for (size_t k = 0; k < n; k++)
				targets[np->dmamap.ntargets++] = r[k].node->phandle;
		}
		pp[i].next = i + 1 < nprops ? &pp[i + 1] : NULL;
	}
	np->properties = nprops ? pp : NULL;
	np->phandle = ++last_phandle;
	np->dmamap.magic = DM_OF_NODE_MAGIC;
	np->dmamap.dev = dev;
	np->dmamap.machine = m;
	*err = 0;
	return np;
}

/* Make @np live. Under of_lock. */
static void node_publish(struct device_node *np)
{
	np->dmamap.next = live_nodes;
	live_nodes = np;
}

DMAMAP_API int dmamap_device_set_of_node(struct device *dev, const char *full_name, const struct property_entry *props)
{
	struct dmamap_machine *m;
	struct device_node *np;
	int err;

	if (!dev || !dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dmamap_device_set_of_node: %s", dev ? "device not initialised" : "NULL device");
		return -EINVAL;
	}
	m = dm_dev_machine(dev);
	if (dev->driver) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev_name(dev), NULL, 0,
			      "dmamap_device_set_of_node: driver %s is bound: the board's description comes before the "
			      "driver binds", dev->driver->name ? dev->driver->name : "(unnamed)");
		return -EBUSY;
	}
	pthread_mutex_lock(&of_lock);
	np = node_build(m, dev, full_name, props, "dmamap_device_set_of_node", &err);
	if (np)
		node_publish(np);
	pthread_mutex_unlock(&of_lock);
	if (!np)
		return err;

	dmamap_of_node_free(dev);
	dev->dmamap.of_node = np;
	dev->of_node = np;
	dev->fwnode = &np->fwnode;
	return 0;
}

DMAMAP_API struct device_node *dmamap_of_node_add_child(struct device_node *parent, const char *full_name,
							const struct property_entry *props)
{
	struct device_node *np, **tail;
	struct device *dev;
	int err;

	pthread_mutex_lock(&of_lock);
	if (!parent || !node_live(parent)) {
		pthread_mutex_unlock(&of_lock);
		dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "dmamap_of_node_add_child: %p is no live device-tree node", (void *)parent);
		return ERR_PTR(-EINVAL);
	}
	dev = parent->dmamap.dev;
	if (dev && dev->driver) {
		pthread_mutex_unlock(&of_lock);
		dmamap_report(parent->dmamap.machine, DMAMAP_REPORT_BAD_INPUT, dev_name(dev), NULL, 0,
			      "dmamap_of_node_add_child: driver %s is bound: the board's description comes before the "
			      "driver binds", dev->driver->name ? dev->driver->name : "(unnamed)");
		return ERR_PTR(-EBUSY);
	}
	for (tail = &parent->child; *tail; tail = &(*tail)->sibling) {
		if (full_name && !strcmp((*tail)->full_name, full_name)) {
			pthread_mutex_unlock(&of_lock);
			dmamap_report(parent->dmamap.machine, DMAMAP_REPORT_BAD_INPUT, node_devname(parent), NULL, 0,
				      "dmamap_of_node_add_child: %s has a child %s already", parent->full_name, full_name);
			return ERR_PTR(-EINVAL);
		}
	}
	np = node_build(parent->dmamap.machine, dev, full_name, props, "dmamap_of_node_add_child", &err);
	if (np) {
		np->parent = parent;
		*tail = np;
		node_publish(np);
	}
	pthread_mutex_unlock(&of_lock);
	return np ? np : ERR_PTR(err);
}

DMAMAP_API struct device_node *dmamap_of_node_create(struct dmamap_machine *m, const char *full_name,
						     const struct property_entry *props)
{
	struct device_node *np;
	int err;

	if (!m)
		m = dmamap_machine_current();
	if (!m)
		return ERR_PTR(-ENOMEM);
	pthread_mutex_lock(&of_lock);
	np = node_build(m, NULL, full_name, props, "dmamap_of_node_create", &err);
	if (np)
		node_publish(np);
	pthread_mutex_unlock(&of_lock);
	return np ? np : ERR_PTR(err);
}

/* Whether @np is @root or below it. */
static bool node_within(const struct device_node *np, const struct device_node *root)
{
	for (; np; np = np->parent)
		if (np == root)
			return true;
	return false;
}

/* A live node outside @root's tree that refers by phandle to a node within it, or NULL. Under of_lock. */
static const struct device_node *referrer_of(const struct device_node *root)
{
	for (const struct device_node *l = live_nodes; l; l = l->dmamap.next) {
		if (node_within(l, root))
			continue;
		for (unsigned int i = 0; i < l->dmamap.ntargets; i++) {
			const struct device_node *t = node_by_phandle(root->dmamap.machine, l->dmamap.targets[i]);

			if (t && node_within(t, root))
				return l;
		}
	}
	return NULL;
}

DMAMAP_API int dmamap_of_node_destroy(struct device_node *np)
{
	const struct device_node *user;

	pthread_mutex_lock(&of_lock);
	if (!np || !node_live(np) || np->parent || np->dmamap.dev) {
		bool live = np && node_live(np);

		pthread_mutex_unlock(&of_lock);
		dmamap_report(live ? np->dmamap.machine : dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT,
			      live ? node_devname(np) : NULL, NULL, 0, "dmamap_of_node_destroy: %s",
			      live ? "not a node of dmamap_of_node_create() (a device's, or a child)"
				   : "no live device-tree node");
		return -EINVAL;
	}
	user = referrer_of(np);
	if (user) {
		dmamap_report(np->dmamap.machine, DMAMAP_REPORT_BAD_INPUT, node_devname(user), NULL, 0,
			      "dmamap_of_node_destroy: %s is referred to by %s: nothing freed", np->full_name,
			      user->full_name);
		pthread_mutex_unlock(&of_lock);
		return -EBUSY;
	}
	tree_free(np);
	pthread_mutex_unlock(&of_lock);
	return 0;
}

/* The machine's nodes, and what is held to them, at its destroy: after its devices. */
void dmamap_of_machine_fini(struct dmamap_machine *m)
{
	pthread_mutex_lock(&of_lock);
	for (struct device_node **pp = &live_nodes; *pp;) {
		struct device_node *np = *pp;

		if (np->dmamap.machine == m && !np->parent) {
			tree_free(np);
			pp = &live_nodes; /* the list changed under us */
			continue;
		}
		pp = &np->dmamap.next;
	}
	pthread_mutex_unlock(&of_lock);
}

/* ---------------------------------------------------------- references */

/* Record a reference to @np taken at @file:@line, for @dev's unbind. Under of_lock; false without memory. */
static bool ref_take(struct device_node *np, struct device *dev, const char *file, int line)
{
	struct of_ref *r = dmamap_zalloc(np->dmamap.machine, sizeof(*r));

	if (!r)
		return false;
	r->np = np;
	r->dev = dev;
	r->file = file;
	r->line = line;
	r->next = live_refs;
	live_refs = r;
	return true;
}

/*
 * Unlink and free the latest entry of @list for @np and, when @dev is
 * given, @dev. Under of_lock; false when there is none.
 */
static bool ref_unlink(struct of_ref **list, const struct device_node *np, const struct device *dev)
{
	for (struct of_ref **pp = list; *pp; pp = &(*pp)->next) {
		struct of_ref *r = *pp;

		if (r->np == np && (!dev || r->dev == dev)) {
			*pp = r->next;
			dmamap_free(r);
			return true;
		}
	}
	return false;
}

/*
 * A reference to @np for a walk from @from (its device's unbind reports
 * it), at @file:@line; NULL for NULL. Under of_lock. Without memory for its
 * record the reference is held uncounted, never reported: the walk goes on,
 * and its put is no put too many.
 */
static struct device_node *node_get(struct device_node *np, const struct device_node *from, const char *file,
				    int line)
{
	if (np && !ref_take(np, from->dmamap.dev, file, line))
		np->dmamap.uncounted++;
	return np;
}

/* Give back a reference to @np at @file:@line, a put without one reported. Under of_lock. */
static void node_put(struct device_node *np, const char *file, int line)
{
	if (!np)
		return;
	if (!node_live(np)) {
		dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "of_node_put(%p): no live device-tree node", (void *)np);
		return;
	}
	if (np->dmamap.uncounted)
		np->dmamap.uncounted--;
	else if (!ref_unlink(&live_refs, np, NULL))
		dmamap_report(np->dmamap.machine, DMAMAP_REPORT_API_MISUSE, node_devname(np), file, line,
			      "of_node_put(%s): no reference left to put (the count would go below zero)",
			      np->full_name);
}

DMAMAP_API struct device_node *dmamap_of_node_get_at(struct device_node *np, const char *file, int line)
{
	if (!np)
		return NULL;
	pthread_mutex_lock(&of_lock);
	if (node_live(np)) {
		node_get(np, np, file, line);
		pthread_mutex_unlock(&of_lock);
		return np;
	}
	pthread_mutex_unlock(&of_lock);
	dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
		      "of_node_get(%p): no live device-tree node", (void *)np);
	return np;
}

DMAMAP_API void dmamap_of_node_put_at(struct device_node *np, const char *file, int line)
{
	pthread_mutex_lock(&of_lock);
	node_put(np, file, line);
	pthread_mutex_unlock(&of_lock);
}

/*
 * What @dev's driver left: each reference taken in a walk of @dev's tree
 * and never given back, reported as a leak at its line and dropped.
 */
void dmamap_of_unbind(struct device *dev)
{
	int depth = dm_call_suspend(); /* the reports name the driver's own lines */

	pthread_mutex_lock(&of_lock);
	for (struct of_ref **pp = &live_refs; *pp;) {
		struct of_ref *r = *pp;

		if (r->dev != dev) {
			pp = &r->next;
			continue;
		}
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, r->file, r->line,
				  "device-tree node %s: reference never put (of_node_put())", r->np->full_name);
		*pp = r->next;
		dmamap_free(r);
	}
	pthread_mutex_unlock(&of_lock);
	dm_call_resume(depth);
}

/* ------------------------------------------------------------ the tree */

DMAMAP_API struct device_node *dmamap_of_get_parent_at(const struct device_node *np, const char *file, int line)
{
	struct device_node *parent;

	if (!np)
		return NULL;
	pthread_mutex_lock(&of_lock);
	parent = node_get(np->parent, np, file, line);
	pthread_mutex_unlock(&of_lock);
	return parent;
}

/* The child of @node after @prev (the first for NULL) that is available, when @available; NULL after the last. */
static struct device_node *next_child(const struct device_node *node, struct device_node *prev, bool available,
				      const char *file, int line)
{
	struct device_node *next;

	if (!node)
		return NULL;
	pthread_mutex_lock(&of_lock);
	next = prev ? prev->sibling : node->child;
	while (next && available && !of_device_is_available(next))
		next = next->sibling;
	node_get(next, node, file, line);
	node_put(prev, file, line);
	pthread_mutex_unlock(&of_lock);
	return next;
}

DMAMAP_API struct device_node *dmamap_of_get_next_child_at(const struct device_node *node, struct device_node *prev,
							   const char *file, int line)
{
	return next_child(node, prev, false, file, line);
}

DMAMAP_API struct device_node *dmamap_of_get_next_available_child_at(const struct device_node *node,
								     struct device_node *prev, const char *file,
								     int line)
{
	return next_child(node, prev, true, file, line);
}

DMAMAP_API struct fwnode_handle *dmamap_fwnode_get_next_child_node_at(const struct fwnode_handle *fwnode,
								      struct fwnode_handle *child, const char *file,
								      int line)
{
	return of_fwnode_handle(next_child(to_of_node(fwnode), to_of_node(child), true, file, line));
}

DMAMAP_API struct device_node *dmamap_of_get_child_by_name_at(const struct device_node *node, const char *name,
							      const char *file, int line)
{
	struct device_node *c = NULL;

	if (!node)
		return NULL;
	pthread_mutex_lock(&of_lock);
	for (c = node->child; c && !of_node_name_eq(c, name); c = c->sibling)
		;
	node_get(c, node, file, line);
	pthread_mutex_unlock(&of_lock);
	return c;
}

/* How many children @np has, only the available ones when @available. */
static int child_count(const struct device_node *np, bool available)
{
	int n = 0;

	if (!np)
		return 0;
	pthread_mutex_lock(&of_lock);
	for (const struct device_node *c = np->child; c; c = c->sibling)
		n += !available || of_device_is_available(c);
	pthread_mutex_unlock(&of_lock);
	return n;
}

DMAMAP_API int of_get_child_count(const struct device_node *np)
{
	return child_count(np, false);
}

DMAMAP_API int of_get_available_child_count(const struct device_node *np)
{
	return child_count(np, true);
}

DMAMAP_API bool of_device_is_available(const struct device_node *device)
{
	const struct property *pp = of_find_property(device, "status", NULL);

	if (!device)
		return false;
	if (!pp)
		return true;
	return pp->length > 0 && strnlen(pp->value, (size_t)pp->length) < (size_t)pp->length &&
	       (!strcmp(pp->value, "okay") || !strcmp(pp->value, "ok"));
}

DMAMAP_API struct property *of_find_property(const struct device_node *np, const char *name, int *lenp)
{
	if (!np || !name)
		return NULL;
	for (struct property *pp = np->properties; pp; pp = pp->next) {
		if (!strcmp(pp->name, name)) {
			if (lenp)
				*lenp = pp->length;
			return pp;
		}
	}
	return NULL;
}

DMAMAP_API const void *of_get_property(const struct device_node *np, const char *name, int *lenp)
{
	const struct property *pp = of_find_property(np, name, lenp);

	return pp ? pp->value : NULL;
}

/* Report a read of @propname of @np into a NULL output: -EINVAL. */
static int null_output(const struct device_node *np, const char *propname)
{
	dmamap_report(np->dmamap.machine, DMAMAP_REPORT_BAD_INPUT, node_devname(np), NULL, 0,
		      "reading property \"%s\" of %s: NULL output", propname, np->full_name);
	return -EINVAL;
}

/* The value of @propname when it holds from @min to @max bytes (@max 0: no limit), or an ERR_PTR. */
static const u8 *value_of_size(const struct device_node *np, const char *propname, size_t min, size_t max,
			       size_t *len)
{
	const struct property *pp = of_find_property(np, propname, NULL);

	if (!pp)
		return ERR_PTR(-EINVAL);
	if (!pp->value)
		return ERR_PTR(-ENODATA);
	if ((size_t)pp->length < min || (max && (size_t)pp->length > max))
		return ERR_PTR(-EOVERFLOW);
	if (len)
		*len = (size_t)pp->length;
	return pp->value;
}

DMAMAP_API int of_property_count_elems_of_size(const struct device_node *np, const char *propname, int elem_size)
{
	const struct property *pp = of_find_property(np, propname, NULL);

	if (!pp)
		return -EINVAL;
	if (!pp->value)
		return -ENODATA;
	if (elem_size <= 0 || pp->length % elem_size)
		return -EINVAL;
	return pp->length / elem_size;
}

/* A big-endian number of @w bytes at @p. */
static u64 be_at(const u8 *p, size_t w)
{
	u64 v = 0;

	for (size_t b = 0; b < w; b++)
		v = v << 8 | p[b];
	return v;
}

/* of_property_read_variable_u*_array(): values of @w bytes, stored to @out as u8, u16, u32 or u64. */
static int read_variable(const struct device_node *np, const char *propname, void *out, size_t sz_min,
			 size_t sz_max, size_t w)
{
	size_t len, n;
	const u8 *val;

	if (sz_min > INT_MAX / w || sz_max > INT_MAX / w)
		return -EOVERFLOW; /* no property holds that many */
	val = value_of_size(np, propname, sz_min * w, sz_max * w, &len);
	if (IS_ERR(val))
		return (int)PTR_ERR(val);
	n = sz_max ? len / w : sz_min;
	if (n && !out)
		return null_output(np, propname);
	for (size_t i = 0; i < n; i++) {
		u64 v = be_at(val + i * w, w);

		switch (w) {
		case 1:
			((u8 *)out)[i] = (u8)v;
			break;
		case 2:
			((u16 *)out)[i] = (u16)v;
			break;
		case 4:
			((u32 *)out)[i] = (u32)v;
			break;
		default:
			((u64 *)out)[i] = v;
			break;
		}
	}
	return (int)n;
}

DMAMAP_API int of_property_read_variable_u8_array(const struct device_node *np, const char *propname,
						  u8 *out_values, size_t sz_min, size_t sz_max)
{
	return read_variable(np, propname, out_values, sz_min, sz_max, 1);
}

DMAMAP_API int of_property_read_variable_u16_array(const struct device_node *np, const char *propname,
						   u16 *out_values, size_t sz_min, size_t sz_max)
{
	return read_variable(np, propname, out_values, sz_min, sz_max, 2);
}

DMAMAP_API int of_property_read_variable_u32_array(const struct device_node *np, const char *propname,
						   u32 *out_values, size_t sz_min, size_t sz_max)
{
	return read_variable(np, propname, out_values, sz_min, sz_max, 4);
}

DMAMAP_API int of_property_read_variable_u64_array(const struct device_node *np, const char *propname,
						   u64 *out_values, size_t sz_min, size_t sz_max)
{
	return read_variable(np, propname, out_values, sz_min, sz_max, 8);
}

DMAMAP_API int of_property_read_u32_index(const struct device_node *np, const char *propname, u32 index,
					  u32 *out_value)
{
	const u8 *val = value_of_size(np, propname, ((size_t)index + 1) * 4, 0, NULL);

	if (IS_ERR(val))
		return (int)PTR_ERR(val);
	if (!out_value)
		return null_output(np, propname);
	*out_value = (u32)be_at(val + (size_t)index * 4, 4);
	return 0;
}

/*
 * Walk the first @limit strings of property @pp (all when @limit is
 * negative): return the index of the first for which @match (when given)
 * returns true; -EILSEQ for a string that runs past the value before that;
 * else -ENOENT, with the number of strings walked in @count.
 */
static int strings_walk(const struct property *pp, int limit, bool (*match)(const char *s, const void *arg),
			const void *arg, int *count)
{
	const char *p = pp->value, *end = p + pp->length;
	int i;

	for (i = 0; p < end && i != limit; i++) {
		size_t l = strnlen(p, (size_t)(end - p)) + 1;

		if (p + l > end)
			return -EILSEQ;
		if (match && match(p, arg))
			return i;
		p += l;
	}
	*count = i;
	return -ENOENT;
}

DMAMAP_API int of_property_read_string_helper(const struct device_node *np, const char *propname,
					      const char **out_strs, size_t sz, int skip)
{
	const struct property *pp = of_find_property(np, propname, NULL);
	const char *p;
	int count = 0, r;

	if (!pp || skip < 0)
		return -EINVAL;
	if (!pp->value)
		return -ENODATA;
	if (sz > (size_t)(INT_MAX - skip))
		sz = (size_t)(INT_MAX - skip);
	r = strings_walk(pp, out_strs ? skip + (int)sz : -1, NULL, NULL, &count);
	if (r != -ENOENT)
		return r;
	p = pp->value;
	for (int i = 0; out_strs && i < count; i++, p += strlen(p) + 1)
		if (i >= skip)
			out_strs[i - skip] = p;
	count -= skip;
	return count <= 0 ? -ENODATA : count;
}

DMAMAP_API int of_property_read_string(const struct device_node *np, const char *propname, const char **out_string)
{
	const struct property *pp = of_find_property(np, propname, NULL);

	if (!pp)
		return -EINVAL;
	if (!pp->length)
		return -ENODATA;
	if (strnlen(pp->value, (size_t)pp->length) >= (size_t)pp->length)
		return -EILSEQ;
	if (!out_string)
		return null_output(np, propname);
	*out_string = pp->value;
	return 0;
}

static bool string_is(const char *s, const void *arg)
{
	return !strcmp(s, arg);
}

DMAMAP_API int of_property_match_string(const struct device_node *np, const char *propname, const char *string)
{
	const struct property *pp = of_find_property(np, propname, NULL);
	int count, r;

	if (!pp || !string)
		return -EINVAL;
	if (!pp->value)
		return -ENODATA;
	r = strings_walk(pp, -1, string_is, string, &count);
	return r == -ENOENT ? -ENODATA : r;
}

static bool string_is_compat(const char *s, const void *arg)
{
	return !strcasecmp(s, arg);
}

/* The kernel's score of @np against a match entry's @compat, @type and @name (each ignored when empty); 0: no match. */
static int node_score(const struct device_node *np, const char *compat, const char *type, const char *name)
{
	int score = 0;

	if (!np)
		return 0;
	if (compat && compat[0]) {
		const struct property *pp = of_find_property(np, "compatible", NULL);
		int count, i = pp && pp->value ? strings_walk(pp, -1, string_is_compat, compat, &count) : -ENOENT;

		if (i < 0)
			return 0;
		score = INT_MAX / 2 - (i << 2);
	}
	if (type && type[0]) {
		const struct property *pp = of_find_property(np, "device_type", NULL);

		if (!pp || !pp->length || strnlen(pp->value, (size_t)pp->length) >= (size_t)pp->length ||
		    strcmp(pp->value, type))
			return 0;
		score += 2;
	}
	if (name && name[0]) {
		if (!of_node_name_eq(np, name))
			return 0;
		score++;
	}
	return score;
}

DMAMAP_API int of_device_is_compatible(const struct device_node *np, const char *compat)
{
	return compat ? node_score(np, compat, NULL, NULL) : 0;
}

DMAMAP_API bool of_node_name_eq(const struct device_node *np, const char *name)
{
	size_t len;

	if (!np || !name)
		return false;
	len = strcspn(np->full_name, "@");
	return strlen(name) == len && !strncmp(np->full_name, name, len);
}

DMAMAP_API const struct of_device_id *of_match_node(const struct of_device_id *matches, const struct device_node *node)
{
	const struct of_device_id *best = NULL;
	int best_score = 0;

	if (!matches || !node)
		return NULL;
	for (; matches->name[0] || matches->type[0] || matches->compatible[0]; matches++) {
		int score = node_score(node, matches->compatible, matches->type, matches->name);

		if (score > best_score) {
			best = matches;
			best_score = score;
		}
	}
	return best;
}

DMAMAP_API const struct of_device_id *of_match_device(const struct of_device_id *matches, const struct device *dev)
{
	return dev ? of_match_node(matches, dev->of_node) : NULL;
}

DMAMAP_API const void *of_device_get_match_data(const struct device *dev)
{
	const struct of_device_id *match;

	if (!dev || !dev->driver)
		return NULL;
	match = of_match_device(dev->driver->of_match_table, dev);
	return match ? match->data : NULL;
}

DMAMAP_API const void *device_get_match_data(const struct device *dev)
{
	return of_device_get_match_data(dev);
}

DMAMAP_API bool fwnode_property_present(const struct fwnode_handle *fwnode, const char *propname)
{
	return of_property_read_bool(to_of_node(fwnode), propname);
}

/* fwnode_property_read_u*_array(): count the values of @w bytes when @val is NULL, else read @nval of them. */
static int fwnode_read(const struct fwnode_handle *fwnode, const char *propname, void *val, size_t nval, size_t w)
{
	const struct device_node *np = to_of_node(fwnode);
	int ret;

	if (!np)
		return -EINVAL;
	if (!val)
		return of_property_count_elems_of_size(np, propname, (int)w);
	ret = read_variable(np, propname, val, nval, 0, w);
	return ret < 0 ? ret : 0;
}

DMAMAP_API int fwnode_property_read_u8_array(const struct fwnode_handle *fwnode, const char *propname, u8 *val,
					     size_t nval)
{
	return fwnode_read(fwnode, propname, val, nval, 1);
}

DMAMAP_API int fwnode_property_read_u16_array(const struct fwnode_handle *fwnode, const char *propname, u16 *val,
					      size_t nval)
{
	return fwnode_read(fwnode, propname, val, nval, 2);
}

DMAMAP_API int fwnode_property_read_u32_array(const struct fwnode_handle *fwnode, const char *propname, u32 *val,
					      size_t nval)
{
	return fwnode_read(fwnode, propname, val, nval, 4);
}

DMAMAP_API int fwnode_property_read_u64_array(const struct fwnode_handle *fwnode, const char *propname, u64 *val,
					      size_t nval)
{
	return fwnode_read(fwnode, propname, val, nval, 8);
}

DMAMAP_API int fwnode_property_read_string_array(const struct fwnode_handle *fwnode, const char *propname,
						 const char **val, size_t nval)
{
	const struct device_node *np = to_of_node(fwnode);

	if (!np)
		return -EINVAL;
	return val ? of_property_read_string_array(np, propname, val, nval) : of_property_count_strings(np, propname);
}

DMAMAP_API int fwnode_property_match_string(const struct fwnode_handle *fwnode, const char *propname,
					    const char *string)
{
	return of_property_match_string(to_of_node(fwnode), propname, string);
}

/* ------------------------------------------------------------ phandles */

/* One entry of a phandle list: its phandle, the node (NULL if none), its argument cells. */
struct phandle_it {
	const u8 *cur, *end;
	u32 phandle, count;
	const u8 *args;
	struct device_node *node;
};

/*
 * The next entry of @it, of @np's @list_name: 0; -ENOENT past the last;
 * -EINVAL (reported at @file:@line) for a malformed one. Under of_lock.
 */
static int phandle_next(const struct device_node *np, const char *list_name, const char *cells_name, int cell_count,
			struct phandle_it *it, const char *file, int line)
{
	const char *why = NULL;
	u32 count = 0;

	if (it->cur >= it->end)
		return -ENOENT;
	it->phandle = (u32)be_at(it->cur, 4);
	it->cur += 4;
	it->node = NULL;
	if (it->phandle) {
		it->node = node_by_phandle(np->dmamap.machine, it->phandle);
		if (cells_name && !it->node)
			why = "a phandle no node has";
		else if (cells_name && of_property_read_u32(it->node, cells_name, &count))
			count = cell_count >= 0 ? (u32)cell_count : (why = "a node without its cell count", 0);
		else if (!cells_name)
			count = cell_count >= 0 ? (u32)cell_count : (why = "no cell count", 0);
		if (!why && count > MAX_PHANDLE_ARGS)
			why = "more argument cells than MAX_PHANDLE_ARGS";
		if (!why && count > (size_t)(it->end - it->cur) / 4)
			why = "arguments running past the property's end";
	}
	if (why) {
		dmamap_report(np->dmamap.machine, DMAMAP_REPORT_BAD_INPUT, node_devname(np), file, line,
			      "phandle list %s of %s: entry of phandle %u (%s%s%s): %s", list_name, np->full_name,
			      it->phandle, it->node ? it->node->full_name : "no node", cells_name ? ", " : "",
			      cells_name ? cells_name : "", why);
		return -EINVAL;
	}
	it->args = it->cur;
	it->count = count;
	it->cur += 4 * (size_t)count;
	return 0;
}

/* Start @it on @np's @list_name: 0, or -ENOENT when it is missing or empty of a value. */
static int phandle_start(const struct device_node *np, const char *list_name, struct phandle_it *it)
{
	const struct property *pp = of_find_property(np, list_name, NULL);

	if (!pp || !pp->value)
		return -ENOENT;
	it->cur = pp->value;
	it->end = it->cur + (size_t)pp->length / 4 * 4;
	return 0;
}

DMAMAP_API int dmamap_of_parse_phandle_with_args_at(const struct device_node *np, const char *list_name,
						    const char *cells_name, int cell_count, int index,
						    struct of_phandle_args *out_args, const char *file, int line)
{
	struct phandle_it it;
	int cur = 0, rc;

	if (index < 0)
		return -EINVAL;
	rc = phandle_start(np, list_name, &it);
	if (rc)
		return rc;
	pthread_mutex_lock(&of_lock);
	while (!(rc = phandle_next(np, list_name, cells_name, cell_count, &it, file, line))) {
		if (cur++ != index)
			continue;
		if (!it.phandle) {
			rc = -ENOENT; /* an empty entry */
			break;
		}
		if (out_args) {
			out_args->np = node_get(it.node, np, file, line);
			out_args->args_count = (int)it.count;
			for (u32 i = 0; i < it.count; i++)
				out_args->args[i] = (u32)be_at(it.args + 4 * (size_t)i, 4);
		}
		break;
	}
	pthread_mutex_unlock(&of_lock);
	return rc;
}

DMAMAP_API int dmamap_of_count_phandle_with_args_at(const struct device_node *np, const char *list_name,
						    const char *cells_name, const char *file, int line)
{
	struct phandle_it it;
	int count = 0, rc;

	rc = phandle_start(np, list_name, &it);
	if (rc)
		return rc;
	if (!cells_name)
		return (int)((it.end - it.cur) / 4);
	pthread_mutex_lock(&of_lock);
	while (!(rc = phandle_next(np, list_name, cells_name, -1, &it, file, line)))
		count++;
	pthread_mutex_unlock(&of_lock);
	return rc == -ENOENT ? count : rc;
}

DMAMAP_API struct device_node *dmamap_of_find_node_by_phandle_at(phandle handle, const char *file, int line)
{
	struct device_node *np;

	pthread_mutex_lock(&of_lock);
	np = node_by_phandle(dmamap_machine_peek_current(), handle);
	node_get(np, np, file, line);
	pthread_mutex_unlock(&of_lock);
	return np;
}

/* ------------------------------------------------------ reserved memory */

/* The devices of_reserved_mem_device_init*() gave declared memory: entries of no node. */
static struct of_ref *rmem_users;

/* The "#address-cells" (or "#size-cells", @what) that apply to the "reg" of @np: its parents', 1 at the root. */
static u32 n_cells(const struct device_node *np, const char *what)
{
	u32 n;

	for (np = np->parent; np; np = np->parent)
		if (!of_property_read_u32(np, what, &n))
			return n;
	return 1;
}

/* Why region @rmem cannot serve a device (NULL: it can), its memory read into @base and @size. */
static const char *rmem_region(const struct device_node *rmem, u64 *base, u64 *size)
{
	u32 ac = n_cells(rmem, "#address-cells"), sc = n_cells(rmem, "#size-cells");
	u32 cells[4];

	if (of_device_is_compatible(rmem, "shared-dma-pool") <= 0)
		return "not compatible with \"shared-dma-pool\"";
	if (of_property_read_bool(rmem, "reusable"))
		return "\"reusable\" (CMA) regions are not modelled";
	if (!of_property_read_bool(rmem, "no-map"))
		return "without \"no-map\" (ARM's shared-dma-pool needs it)";
	if (ac < 1 || ac > 2 || sc < 1 || sc > 2)
		return "#address-cells and #size-cells must be 1 or 2";
	if (of_property_read_u32_array(rmem, "reg", cells, ac + sc))
		return "no \"reg\" of one address and one size";
	*base = ac == 2 ? (u64)cells[0] << 32 | cells[1] : cells[0];
	*size = sc == 2 ? (u64)cells[ac] << 32 | cells[ac + 1] : cells[ac];
	return NULL;
}

DMAMAP_API int dmamap_of_reserved_mem_device_init_by_idx_at(struct device *dev, struct device_node *np, int idx,
							    const char *file, int line)
{
	struct of_phandle_args args;
	struct of_ref *u;
	const char *why;
	u64 base = 0, size = 0;
	int err;

	if (!dm_dev_ok(dev, "of_reserved_mem_device_init", file, line))
		return -EINVAL;
	if (!np)
		return -EINVAL;
	if (dmamap_of_parse_phandle_with_args_at(np, "memory-region", NULL, 0, idx, &args, file, line) || !args.np)
		return -ENODEV;
	if (!of_device_is_available(args.np)) {
		dmamap_of_node_put_at(args.np, file, line);
		return 0;
	}
	why = rmem_region(args.np, &base, &size);
	if (!why && (base > (phys_addr_t)-1 || size > SIZE_MAX))
		why = "a region beyond the physical address space";
	if (why) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "of_reserved_mem_device_init: region %s: %s",
				  args.np->full_name, why);
		dmamap_of_node_put_at(args.np, file, line);
		return -EINVAL;
	}
	dmamap_of_node_put_at(args.np, file, line);
	u = dmamap_zalloc(dm_dev_machine(dev), sizeof(*u));
	if (!u)
		return -ENOMEM;
	err = dma_declare_coherent_memory(dev, (phys_addr_t)base, dm_phys_to_dma(dev, (phys_addr_t)base), (size_t)size);
	if (err) {
		dmamap_free(u);
		return err;
	}
	u->dev = dev;
	pthread_mutex_lock(&of_lock);
	u->next = rmem_users;
	rmem_users = u;
	pthread_mutex_unlock(&of_lock);
	return 0;
}

DMAMAP_API void of_reserved_mem_device_release(struct device *dev)
{
	bool given;

	if (!dm_dev_ok(dev, "of_reserved_mem_device_release", NULL, 0))
		return;
	pthread_mutex_lock(&of_lock);
	given = ref_unlink(&rmem_users, NULL, dev);
	pthread_mutex_unlock(&of_lock);
	if (given)
		dma_release_declared_memory(dev);
}

/* At @dev's release, its declared memory released already: what was given it forgotten, its node freed. */
void dmamap_of_release(struct device *dev)
{
	pthread_mutex_lock(&of_lock);
	ref_unlink(&rmem_users, NULL, dev);
	pthread_mutex_unlock(&of_lock);
	dmamap_of_node_free(dev);
}
