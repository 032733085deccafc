/* SPDX-License-Identifier: MIT */
/*
 * Device-tree nodes the test gives its devices, and the kernel's readers of
 * them (<dmamap/of.h>). A node and everything it holds is one allocation:
 * the node, its properties, then its names and values, laid out as a
 * flattened device tree stores them.
 */
#include <limits.h>
#include <strings.h>

#include "internal.h"

#define DM_OF_NODE_MAGIC 0x6f665f6e6f6465UL

/* How many bytes the device tree stores for entry @e, or -1 when @e cannot be stored (@why says why). */
static long entry_bytes(const struct property_entry *e, const char **why)
{
	static const size_t width[] = { [DEV_PROP_U8] = 1, [DEV_PROP_U16] = 2, [DEV_PROP_U32] = 4, [DEV_PROP_U64] = 8 };
	const char *const *strs;
	size_t n, bytes = 0;

	if (!e->name[0])
		return *why = "a property without a name", -1;
	if (!e->length)
		return 0; /* a boolean, whatever its type */
	if (e->type == DEV_PROP_REF)
		return *why = "references to other nodes are not modelled", -1;
	if (e->type > DEV_PROP_STRING)
		return *why = "an unknown type", -1;
	if (e->is_inline && e->length > sizeof(e->value))
		return *why = "more inline bytes than an entry holds", -1;
	if (!e->is_inline && !e->pointer)
		return *why = "values at a NULL pointer", -1;
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

/* Store @e's values at @dst as the device tree does: big-endian numbers, NUL-ended strings. */
static void entry_store(const struct property_entry *e, u8 *dst)
{
	const void *src = e->is_inline ? (const void *)&e->value : e->pointer;
	size_t n;

	switch (e->type) {
	case DEV_PROP_U8:
		memcpy(dst, src, e->length);
		break;
	case DEV_PROP_U16:
		for (n = 0; n < e->length / 2; n++) {
			u16 v = ((const u16 *)src)[n];

			dst[2 * n] = (u8)(v >> 8);
			dst[2 * n + 1] = (u8)v;
		}
		break;
	case DEV_PROP_U32:
	case DEV_PROP_U64: {
		size_t w = e->type == DEV_PROP_U32 ? 4 : 8;

		for (n = 0; n < e->length / w; n++) {
			u64 v = w == 4 ? ((const u32 *)src)[n] : ((const u64 *)src)[n];

			for (size_t b = 0; b < w; b++)
				dst[n * w + b] = (u8)(v >> (8 * (w - 1 - b)));
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

/* Free the node dmamap_device_set_of_node() gave @dev, and the device's pointers to it. */
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
	np->dmamap.magic = 0;
	dmamap_free(np);
}

#define OF_ALIGN(x) (((x) + 7) & ~(size_t)7)

DMAMAP_API int dmamap_device_set_of_node(struct device *dev, const char *full_name, const struct property_entry *props)
{
	struct dmamap_machine *m;
	struct device_node *np;
	struct property *pp;
	size_t nprops = 0, size, name_len;
	const char *why = NULL;
	char *p;

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
	name_len = full_name ? strlen(full_name) : 0;
	if (!name_len) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev_name(dev), NULL, 0, "dmamap_device_set_of_node: %s",
			      full_name ? "empty node name" : "NULL node name");
		return -EINVAL;
	}
	size = OF_ALIGN(sizeof(*np)) + OF_ALIGN(name_len + 1) * 2;
	for (const struct property_entry *e = props; e && e->name; e++, nprops++) {
		long bytes = entry_bytes(e, &why);

		for (const struct property_entry *f = props; !why && f < e; f++)
			if (!strcmp(f->name, e->name))
				why = "a name given twice";
		if (why) {
			dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev_name(dev), NULL, 0,
				      "dmamap_device_set_of_node: property %zu (\"%s\") of %s: %s", nprops, e->name,
				      full_name, why);
			return -EINVAL;
		}
		size += sizeof(*pp) + OF_ALIGN(strlen(e->name) + 1) + OF_ALIGN((size_t)bytes);
	}

	np = dmamap_zalloc(m, size);
	if (!np)
		return -ENOMEM;
	pp = (struct property *)((char *)np + OF_ALIGN(sizeof(*np)));
	p = (char *)(pp + nprops);
	np->full_name = memcpy(p, full_name, name_len + 1);
	p += OF_ALIGN(name_len + 1);
	np->name = p;
	memcpy(p, full_name, strcspn(full_name, "@"));
	p += OF_ALIGN(name_len + 1);
	for (size_t i = 0; i < nprops; i++) {
		const struct property_entry *e = &props[i];
		long bytes = entry_bytes(e, &why);

		pp[i].name = memcpy(p, e->name, strlen(e->name) + 1);
		p += OF_ALIGN(strlen(e->name) + 1);
		pp[i].length = (int)bytes;
		if (bytes) {
			pp[i].value = p;
			entry_store(e, (u8 *)p);
			p += OF_ALIGN((size_t)bytes);
		}
		pp[i].next = i + 1 < nprops ? &pp[i + 1] : NULL;
	}
	np->properties = nprops ? pp : NULL;
	np->dmamap.magic = DM_OF_NODE_MAGIC;
	np->dmamap.dev = dev;

	dmamap_of_node_free(dev);
	dev->dmamap.of_node = np;
	dev->of_node = np;
	dev->fwnode = &np->fwnode;
	return 0;
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
	dmamap_report(dm_dev_machine(np->dmamap.dev), DMAMAP_REPORT_BAD_INPUT, dev_name(np->dmamap.dev), NULL, 0,
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
