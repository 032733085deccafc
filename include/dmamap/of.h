/* SPDX-License-Identifier: MIT */
/*
 * Firmware descriptions of devices: the device-tree node a board gives a
 * device, and the readers Linux 6.x drivers find their configuration with
 * (<linux/of.h>, <linux/of_device.h>, <linux/property.h>, which bring this
 * header).
 *
 * A test describes a device as its device tree would, with the kernel's own
 * property initialisers, before the driver binds:
 *
 *	static const struct property_entry props[] = {
 *		PROPERTY_ENTRY_STRING_ARRAY("compatible", compat),   (const char *compat[] = { "acme,dma-v2", "acme,dma" })
 *		PROPERTY_ENTRY_U32("dma-channels", 8),
 *		PROPERTY_ENTRY_BOOL("dma-coherent"),
 *		{ }
 *	};
 *	dmamap_device_set_of_node(&pdev->dev, "dma-controller@10000000", props);
 *
 * The node lives in the library: each value is stored as a flattened device
 * tree stores it (numbers big-endian, a u64 as two cells, strings one after
 * another, each with its NUL), so of_get_property() returns the bytes a
 * kernel driver would decode. dmamap_platform_bind() sets dev->driver, and a
 * driver's of_match_table is matched against the node's "compatible" (and
 * its name and "device_type") as the kernel's of_match_node() scores them:
 * of_device_get_match_data() and device_get_match_data() return the best
 * entry's .data. Every firmware node here is a device-tree node: there is no
 * ACPI and no software node.
 *
 * A node has children (dmamap_of_node_add_child()), walked in the order
 * they were added, and a test describes the nodes that are no device's (a
 * DMA controller's, a reserved-memory region's) with
 * dmamap_of_node_create(): the machine's, until dmamap_of_node_destroy() or
 * the machine's destroy. Every node has a phandle, and a property refers
 * to nodes with PROPERTY_ENTRY_REF() or PROPERTY_ENTRY_REF_ARRAY(), stored
 * as a flattened tree stores a phandle list:
 *
 *	const struct property_entry client[] = {
 *		PROPERTY_ENTRY_REF("dmas", dmac, 3),       (<&dmac 3>, dmac's "#dma-cells" = <1>)
 *		PROPERTY_ENTRY_REF("memory-region", pool), (<&pool>)
 *		{ }
 *	};
 *
 * The walks (of_get_next_child(), for_each_child_of_node()...) and the
 * phandle lookups take references to the nodes they return, as the
 * kernel's do; one never given back with of_node_put() is reported at the
 * line that took it, at the unbind or release of the device whose tree
 * the walk started in.
 *
 * Each reader takes what the kernel's does and returns its errors: -EINVAL
 * for a property (or a node) that is not there, -ENODATA for a property
 * without a value (a boolean), -EOVERFLOW when it holds fewer values than
 * asked for (or, for a variable read, more than its maximum), -EILSEQ for a
 * string without its NUL. An output is written only when the read succeeds.
 */
#ifndef DMAMAP_OF_H
#define DMAMAP_OF_H

#include <stdbool.h>
#include <stddef.h>

#include <dmamap/types.h>
#include <dmamap/device.h>

DMAMAP_BEGIN_DECLS

struct of_device_id;

typedef u32 phandle;

/* The kernel's firmware node handle, embedded in each node (dev_fwnode()). */
struct fwnode_handle {
	struct fwnode_handle *secondary;
	const void *ops; /* unused: every node is a device-tree node */
};

/* One property of a node: @length bytes at @value, as a flattened device tree holds them. */
struct property {
	char *name;
	int length;
	void *value;
	struct property *next;
};

/*
 * A device-tree node. Made by dmamap_device_set_of_node() (the device's
 * until its release), dmamap_of_node_add_child() (its parent's) or
 * dmamap_of_node_create() (the machine's, until dmamap_of_node_destroy()).
 */
struct device_node {
	const char *name;      /* the node name without its unit address: "serial" */
	phandle phandle;       /* unique within the process, never 0 */
	const char *full_name; /* as given: "serial@10000000" */
	struct fwnode_handle fwnode;
	struct property *properties;
	struct device_node *parent, *child, *sibling; /* its first child, its next sibling */
	/* library-private */
	struct {
		unsigned long magic;
		struct device *dev;           /* the device whose tree it is in, NULL for a machine's node */
		struct dmamap_machine *machine;
		struct device_node *next;     /* the process's live nodes */
		const u32 *targets;           /* the phandles its properties refer to */
		unsigned int ntargets;
		unsigned int uncounted;       /* references taken without memory to record them */
	} dmamap;
};

/* <linux/property.h>: the type of a property_entry's values. */
enum dev_prop_type {
	DEV_PROP_U8,
	DEV_PROP_U16,
	DEV_PROP_U32,
	DEV_PROP_U64,
	DEV_PROP_STRING,
	DEV_PROP_REF,
};

/* <linux/fwnode.h>: the most arguments a property_entry's reference carries. */
#define NR_FWNODE_REFERENCE_ARGS 8

/*
 * <linux/property.h>: one reference of a DEV_PROP_REF property_entry, to
 * @node with @nargs argument cells. The kernel's @node is a software node;
 * here every firmware node is a device-tree node, so it is the node referred
 * to, and the property is stored as a flattened tree stores a phandle list:
 * the node's phandle cell, then the @nargs cells of @args (each at most
 * U32_MAX).
 */
struct software_node_ref_args {
	const struct device_node *node;
	unsigned int nargs;
	u64 args[NR_FWNODE_REFERENCE_ARGS];
};

/*
 * <linux/property.h>: one property as a board file gives it, with the
 * kernel's fields: @length bytes of values of @type, inline (one value) or
 * at @pointer; a boolean has no type and no length. An array of them ends
 * with an entry whose @name is NULL. The PROPERTY_ENTRY_*() initialisers
 * below are brace initialisers, for an array or a declaration, where the
 * kernel's are compound literals: write struct property_entry e =
 * PROPERTY_ENTRY_U32(...) rather than assign one.
 */
struct property_entry {
	const char *name;
	size_t length;
	bool is_inline;
	enum dev_prop_type type;
	union {
		const void *pointer;
		union {
			u8 u8_data[sizeof(u64) / sizeof(u8)];
			u16 u16_data[sizeof(u64) / sizeof(u16)];
			u32 u32_data[sizeof(u64) / sizeof(u32)];
			u64 u64_data[sizeof(u64) / sizeof(u64)];
			const char *str[sizeof(u64) / sizeof(char *)];
		} value;
	};
};

#define DMAMAP_PROP_ARRAY_SIZE_(a) (sizeof(a) / sizeof((a)[0]))
#define __PROPERTY_ENTRY_ELEMENT_SIZE(_elem_) sizeof(((struct property_entry *)NULL)->value._elem_[0])
#define __PROPERTY_ENTRY_ARRAY_ELSIZE_LEN(_name_, _elsize_, _Type_, _val_, _len_)                         \
	{ .name = _name_, .length = (_len_) * (_elsize_), .type = DEV_PROP_##_Type_, { .pointer = _val_ } }
#define __PROPERTY_ENTRY_ARRAY_LEN(_name_, _elem_, _Type_, _val_, _len_) \
	__PROPERTY_ENTRY_ARRAY_ELSIZE_LEN(_name_, __PROPERTY_ENTRY_ELEMENT_SIZE(_elem_), _Type_, _val_, _len_)
#define PROPERTY_ENTRY_U8_ARRAY_LEN(_name_, _val_, _len_) __PROPERTY_ENTRY_ARRAY_LEN(_name_, u8_data, U8, _val_, _len_)
#define PROPERTY_ENTRY_U16_ARRAY_LEN(_name_, _val_, _len_) \
	__PROPERTY_ENTRY_ARRAY_LEN(_name_, u16_data, U16, _val_, _len_)
#define PROPERTY_ENTRY_U32_ARRAY_LEN(_name_, _val_, _len_) \
	__PROPERTY_ENTRY_ARRAY_LEN(_name_, u32_data, U32, _val_, _len_)
#define PROPERTY_ENTRY_U64_ARRAY_LEN(_name_, _val_, _len_) \
	__PROPERTY_ENTRY_ARRAY_LEN(_name_, u64_data, U64, _val_, _len_)
#define PROPERTY_ENTRY_STRING_ARRAY_LEN(_name_, _val_, _len_) \
	__PROPERTY_ENTRY_ARRAY_LEN(_name_, str, STRING, _val_, _len_)
#define PROPERTY_ENTRY_U8_ARRAY(_name_, _val_) \
	PROPERTY_ENTRY_U8_ARRAY_LEN(_name_, _val_, DMAMAP_PROP_ARRAY_SIZE_(_val_))
#define PROPERTY_ENTRY_U16_ARRAY(_name_, _val_) \
	PROPERTY_ENTRY_U16_ARRAY_LEN(_name_, _val_, DMAMAP_PROP_ARRAY_SIZE_(_val_))
#define PROPERTY_ENTRY_U32_ARRAY(_name_, _val_) \
	PROPERTY_ENTRY_U32_ARRAY_LEN(_name_, _val_, DMAMAP_PROP_ARRAY_SIZE_(_val_))
#define PROPERTY_ENTRY_U64_ARRAY(_name_, _val_) \
	PROPERTY_ENTRY_U64_ARRAY_LEN(_name_, _val_, DMAMAP_PROP_ARRAY_SIZE_(_val_))
#define PROPERTY_ENTRY_STRING_ARRAY(_name_, _val_) \
	PROPERTY_ENTRY_STRING_ARRAY_LEN(_name_, _val_, DMAMAP_PROP_ARRAY_SIZE_(_val_))
#define __PROPERTY_ENTRY_ELEMENT(_name_, _elem_, _Type_, _val_)                                       \
	{                                                                                            \
		.name = _name_, .length = __PROPERTY_ENTRY_ELEMENT_SIZE(_elem_), .is_inline = true,   \
		.type = DEV_PROP_##_Type_, { .value = { ._elem_[0] = _val_ } }                        \
	}
#define PROPERTY_ENTRY_U8(_name_, _val_) __PROPERTY_ENTRY_ELEMENT(_name_, u8_data, U8, _val_)
#define PROPERTY_ENTRY_U16(_name_, _val_) __PROPERTY_ENTRY_ELEMENT(_name_, u16_data, U16, _val_)
#define PROPERTY_ENTRY_U32(_name_, _val_) __PROPERTY_ENTRY_ELEMENT(_name_, u32_data, U32, _val_)
#define PROPERTY_ENTRY_U64(_name_, _val_) __PROPERTY_ENTRY_ELEMENT(_name_, u64_data, U64, _val_)
#define PROPERTY_ENTRY_STRING(_name_, _val_) __PROPERTY_ENTRY_ELEMENT(_name_, str, STRING, _val_)
#define PROPERTY_ENTRY_BOOL(_name_) { .name = _name_ }

/* How many arguments are given, none too: a trailing comma left by ## in ISO mode adds no element. */
#define DMAMAP_OF_NARGS_(...) (sizeof((const u64[]){ 0, ##__VA_ARGS__ }) / sizeof(u64) - 1)

/*
 * SOFTWARE_NODE_REFERENCE() - a reference to node @_ref_ with up to eight
 * argument cells: SOFTWARE_NODE_REFERENCE(dmac, 3) is <&dmac 3>.
 */
#define SOFTWARE_NODE_REFERENCE(_ref_, ...)                                                      \
	(const struct software_node_ref_args)                                                     \
	{                                                                                         \
		.node = (_ref_), .nargs = DMAMAP_OF_NARGS_(__VA_ARGS__), .args = { __VA_ARGS__ }          \
	}
/* PROPERTY_ENTRY_REF_ARRAY_LEN() - a list of @_len_ references from the array @_val_. */
#define PROPERTY_ENTRY_REF_ARRAY_LEN(_name_, _val_, _len_) \
	__PROPERTY_ENTRY_ARRAY_ELSIZE_LEN(_name_, sizeof(struct software_node_ref_args), REF, _val_, _len_)
#define PROPERTY_ENTRY_REF_ARRAY(_name_, _val_) \
	PROPERTY_ENTRY_REF_ARRAY_LEN(_name_, _val_, DMAMAP_PROP_ARRAY_SIZE_(_val_))
/*
 * PROPERTY_ENTRY_REF() - property @_name_ = <&node args...>, for an array
 * at block scope: PROPERTY_ENTRY_REF("dmas", dmac, 3).
 */
#define PROPERTY_ENTRY_REF(_name_, _ref_, ...)                                              \
	{                                                                                    \
		.name = _name_, .length = sizeof(struct software_node_ref_args), .type = DEV_PROP_REF, \
		{ .pointer = &SOFTWARE_NODE_REFERENCE(_ref_, ##__VA_ARGS__) }                  \
	}

/**
 * dmamap_device_set_of_node() - give @dev the device-tree node a board would describe it with
 * @dev: an initialised device (a platform device's &pdev->dev) with no driver bound
 * @full_name: the node's name with its unit address, "serial@10000000"
 *             (copied; its name is what comes before the '@')
 * @props: its properties, ended by an entry with a NULL name (copied; NULL for none)
 *
 * Builds the node, its values as a flattened device tree stores them, and
 * points dev->of_node and dev->fwnode at it, replacing a node this call gave
 * before. The node is the device's: dmamap_device_release() (or the platform
 * device's destroy) frees it, with its children. An entry of an unknown
 * type, of a length that is not a whole number of values, with values at a
 * NULL pointer, a NULL string among its strings, or a name given twice is
 * refused (DMAMAP_REPORT_BAD_INPUT), as is an empty @full_name; so is a
 * DEV_PROP_REF entry referring to no live node of the device's machine, or
 * with more than NR_FWNODE_REFERENCE_ARGS arguments or one above U32_MAX.
 * Return: 0; -EINVAL for a bad argument or a device that is not initialised,
 * -EBUSY while a driver is bound (the board's description comes first),
 * -ENOMEM; on an error the device is unchanged.
 */
DMAMAP_API int dmamap_device_set_of_node(struct device *dev, const char *full_name, const struct property_entry *props);

/**
 * dmamap_of_node_add_child() - give node @parent a child node, after its other children
 * @parent: a live node: a device's (no driver bound), a machine's or another child
 * @full_name: the child's name with its unit address, "port@1" (copied); no
 *             other child of @parent may have it
 * @props: its properties, as dmamap_device_set_of_node() takes them (copied)
 *
 * The child belongs to @parent's tree and goes with it: with the device's
 * release (or a later dmamap_device_set_of_node()), or with
 * dmamap_of_node_destroy() of a machine's node. Children are walked in the
 * order they were added. Bad input is reported (DMAMAP_REPORT_BAD_INPUT)
 * and changes nothing.
 * Return: the child; ERR_PTR(-EINVAL) for a parent that is no live node, a
 * bad name or property, ERR_PTR(-EBUSY) while a driver is bound to the
 * device whose tree @parent is in, ERR_PTR(-ENOMEM).
 */
DMAMAP_API struct device_node *dmamap_of_node_add_child(struct device_node *parent, const char *full_name,
							const struct property_entry *props);

/**
 * dmamap_of_node_create() - a node of no device: a DMA controller's, a reserved-memory region's
 * @m: the machine it belongs to (NULL: the current machine)
 * @full_name: its name with its unit address (copied)
 * @props: its properties, as dmamap_device_set_of_node() takes them (copied)
 *
 * The node has no parent; dmamap_of_node_add_child() gives it children,
 * and PROPERTY_ENTRY_REF() lets the nodes of the same machine refer to it
 * (or to its children) by phandle. It is the machine's: freed, with its
 * children, by dmamap_of_node_destroy() or by dmamap_machine_destroy(),
 * where references still held to it are reported as leaks.
 * Return: the node; ERR_PTR(-EINVAL) for bad input (reported),
 * ERR_PTR(-ENOMEM).
 */
DMAMAP_API struct device_node *dmamap_of_node_create(struct dmamap_machine *m, const char *full_name,
						     const struct property_entry *props);

/**
 * dmamap_of_node_destroy() - free a node of dmamap_of_node_create() and its children
 * @np: the node
 *
 * References of_node_get() (or a walk or a phandle lookup) took on them and
 * did not put are reported as leaks, at the line that took them.
 * Return: 0; -EINVAL (reported) for a node that is not a live one of
 * dmamap_of_node_create(); -EBUSY (reported, nothing freed) while a node of
 * another tree refers to it or to one of its children by phandle.
 */
DMAMAP_API int dmamap_of_node_destroy(struct device_node *np);

/**
 * of_find_property() - the property @name of @np, or NULL (also for a NULL @np or @name)
 * @np: the node
 * @name: the property's name
 * @lenp: receives its length in bytes when found (may be NULL)
 */
DMAMAP_API struct property *of_find_property(const struct device_node *np, const char *name, int *lenp);

/**
 * of_get_property() - the value of property @name of @np, as stored (big-endian cells), or NULL
 * @np: the node
 * @name: the property's name
 * @lenp: receives its length in bytes when found (may be NULL)
 *
 * The bytes are the node's, valid while it lives (with its device, or its machine).
 */
DMAMAP_API const void *of_get_property(const struct device_node *np, const char *name, int *lenp);

/**
 * of_property_count_elems_of_size() - how many values of @elem_size bytes property @propname holds
 * @np: the node
 * @propname: the property's name
 * @elem_size: bytes a value (1, 2, 4 or 8 for the numbers)
 *
 * Return: the count; -EINVAL when the property is missing, or its length is
 * no whole number of values (or @elem_size is 0); -ENODATA for a property
 * without a value.
 */
DMAMAP_API int of_property_count_elems_of_size(const struct device_node *np, const char *propname, int elem_size);

/**
 * of_property_read_variable_u8_array() - read from @sz_min to @sz_max u8 values of @propname
 * @np: the node
 * @propname: the property's name
 * @out_values: receives the values (as many as the return value)
 * @sz_min: values the property must hold at least
 * @sz_max: values it may hold at most, all of them read; 0: read exactly @sz_min
 *
 * Return: the number of values read; -EINVAL when the property is missing,
 * -ENODATA when it has no value, -EOVERFLOW when it holds fewer than
 * @sz_min values or more than a non-zero @sz_max.
 */
DMAMAP_API int of_property_read_variable_u8_array(const struct device_node *np, const char *propname,
						  u8 *out_values, size_t sz_min, size_t sz_max);

/** of_property_read_variable_u16_array() - of_property_read_variable_u8_array() of big-endian u16 values. */
DMAMAP_API int of_property_read_variable_u16_array(const struct device_node *np, const char *propname,
						   u16 *out_values, size_t sz_min, size_t sz_max);

/** of_property_read_variable_u32_array() - of_property_read_variable_u8_array() of big-endian u32 cells. */
DMAMAP_API int of_property_read_variable_u32_array(const struct device_node *np, const char *propname,
						   u32 *out_values, size_t sz_min, size_t sz_max);

/** of_property_read_variable_u64_array() - of_property_read_variable_u8_array() of u64 values (two cells each). */
DMAMAP_API int of_property_read_variable_u64_array(const struct device_node *np, const char *propname,
						   u64 *out_values, size_t sz_min, size_t sz_max);

/**
 * of_property_read_u32_index() - the @index-th u32 cell of @propname
 * @np: the node
 * @propname: the property's name
 * @index: the cell, from 0
 * @out_value: receives it
 *
 * Return: 0; -EINVAL when the property is missing, -ENODATA when it has no
 * value, -EOVERFLOW when it holds @index cells or fewer.
 */
DMAMAP_API int of_property_read_u32_index(const struct device_node *np, const char *propname, u32 index,
					  u32 *out_value);

/**
 * of_property_read_string_helper() - read, or count, the strings of @propname
 * @np: the node
 * @propname: the property's name
 * @out_strs: receives up to @sz strings after the first @skip (pointers into
 *            the node), or NULL to count them all
 * @sz: room in @out_strs
 * @skip: strings to pass over first
 *
 * Return: the strings stored (or counted, less @skip); -EINVAL when the
 * property is missing, -ENODATA when it has no value or no string past
 * @skip, -EILSEQ when one of the strings read lacks its NUL.
 */
DMAMAP_API int of_property_read_string_helper(const struct device_node *np, const char *propname,
					      const char **out_strs, size_t sz, int skip);

/**
 * of_property_read_string() - the first string of @propname
 * @np: the node
 * @propname: the property's name
 * @out_string: receives a pointer to it (into the node)
 *
 * Return: 0; -EINVAL when the property is missing, -ENODATA when it has no
 * value, -EILSEQ when the value does not end within its length.
 */
DMAMAP_API int of_property_read_string(const struct device_node *np, const char *propname, const char **out_string);

/**
 * of_property_match_string() - the index of @string among the strings of @propname
 * @np: the node
 * @propname: the property's name
 * @string: the string to find (compared exactly)
 *
 * Return: its index from 0; -ENODATA when it is not there (or the property
 * has no value), -EINVAL when the property is missing or @string is NULL,
 * -EILSEQ when a string before it lacks its NUL.
 */
DMAMAP_API int of_property_match_string(const struct device_node *np, const char *propname, const char *string);

/**
 * of_device_is_compatible() - how well @np matches the compatible string @compat
 * @np: the node
 * @compat: a compatible string, compared ignoring case as the kernel does
 *
 * Return: 0 when @compat is not among the node's "compatible" strings, else
 * a positive score, higher the earlier it stands there (the kernel's).
 */
DMAMAP_API int of_device_is_compatible(const struct device_node *np, const char *compat);

/**
 * of_node_name_eq() - whether @np's name, without its unit address, is @name
 * @np: the node, or NULL (false)
 * @name: the name
 */
DMAMAP_API bool of_node_name_eq(const struct device_node *np, const char *name);

/**
 * of_match_node() - the entry of @matches that matches @node best, or NULL
 * @matches: a table ended by an entry whose name, type and compatible are all empty
 * @node: the node
 *
 * An entry with a compatible string matches when the node lists it (the
 * earlier, the better); with a type, when the node's "device_type" is it;
 * with a name, when the node's name is it; each given field must match. A
 * compatible match outranks any other, as in the kernel.
 */
DMAMAP_API const struct of_device_id *of_match_node(const struct of_device_id *matches, const struct device_node *node);

/** of_match_device() - of_match_node() of @dev's of_node; NULL when either is NULL. */
DMAMAP_API const struct of_device_id *of_match_device(const struct of_device_id *matches, const struct device *dev);

/**
 * of_device_get_match_data() - the .data of the bound driver's of_match_table entry matching @dev
 * @dev: the device
 *
 * Return: that entry's data; NULL when no driver is bound, it has no
 * of_match_table, the device has no node, or no entry matches.
 */
DMAMAP_API const void *of_device_get_match_data(const struct device *dev);

/**
 * device_get_match_data() - <linux/property.h>: the driver's match data for @dev
 *
 * of_device_get_match_data() here, as every firmware node is a device-tree
 * node: NULL when there is no match.
 */
DMAMAP_API const void *device_get_match_data(const struct device *dev);

/** fwnode_property_present() - whether firmware node @fwnode has property @propname. */
DMAMAP_API bool fwnode_property_present(const struct fwnode_handle *fwnode, const char *propname);

/**
 * fwnode_property_read_u32_array() - read @nval u32 values of @propname, or count them
 * @fwnode: the firmware node (NULL: -EINVAL)
 * @propname: the property's name
 * @val: receives the first @nval values, or NULL to count them
 * @nval: values to read
 *
 * Return: 0, or the count for a NULL @val; -EINVAL when the node or the
 * property is missing (or its length is no whole number of values, when
 * counting), -ENODATA when it has no value, -EOVERFLOW when it holds fewer
 * than @nval values. The other widths behave alike.
 */
DMAMAP_API int fwnode_property_read_u32_array(const struct fwnode_handle *fwnode, const char *propname, u32 *val,
					      size_t nval);

/** fwnode_property_read_u8_array() - fwnode_property_read_u32_array() of u8 values. */
DMAMAP_API int fwnode_property_read_u8_array(const struct fwnode_handle *fwnode, const char *propname, u8 *val,
					     size_t nval);

/** fwnode_property_read_u16_array() - fwnode_property_read_u32_array() of u16 values. */
DMAMAP_API int fwnode_property_read_u16_array(const struct fwnode_handle *fwnode, const char *propname, u16 *val,
					      size_t nval);

/** fwnode_property_read_u64_array() - fwnode_property_read_u32_array() of u64 values. */
DMAMAP_API int fwnode_property_read_u64_array(const struct fwnode_handle *fwnode, const char *propname, u64 *val,
					      size_t nval);

/**
 * fwnode_property_read_string_array() - read up to @nval strings of @propname, or count them
 * @fwnode: the firmware node (NULL: -EINVAL)
 * @propname: the property's name
 * @val: receives pointers to the strings (into the node), or NULL to count them
 * @nval: room in @val
 *
 * Return: the strings read, or counted; errors as of_property_read_string_helper().
 */
DMAMAP_API int fwnode_property_read_string_array(const struct fwnode_handle *fwnode, const char *propname,
						 const char **val, size_t nval);

/**
 * fwnode_property_match_string() - the index of @string among the strings of @propname
 *
 * As of_property_match_string(); -EINVAL for a NULL @fwnode.
 */
DMAMAP_API int fwnode_property_match_string(const struct fwnode_handle *fwnode, const char *propname,
					    const char *string);

/* <linux/of.h>: the most argument cells of_parse_phandle_with_args() returns. */
#define MAX_PHANDLE_ARGS 16

/* <linux/of.h>: a node a phandle list refers to, and the argument cells after its phandle. */
struct of_phandle_args {
	struct device_node *np;
	int args_count;
	uint32_t args[MAX_PHANDLE_ARGS];
};

/**
 * dmamap_of_node_get_at() - of_node_get(): take a reference to @np
 * @np: a live node, or NULL (nothing done)
 * @file: the caller's file, for the leak report of a reference never put (may be NULL)
 * @line: the caller's line
 *
 * Each reference is counted until of_node_put() gives it back; one still
 * held is reported (DMAMAP_REPORT_LEAK, at @file:@line) at the unbind or
 * release of the device whose tree @np is in, or when a machine's node is
 * destroyed (with the machine or by dmamap_of_node_destroy()).
 * Return: @np; a pointer that is no live node is reported and returned as it
 * is, no reference taken.
 */
DMAMAP_API struct device_node *dmamap_of_node_get_at(struct device_node *np, const char *file, int line);

/**
 * dmamap_of_node_put_at() - of_node_put(): give back a reference of of_node_get()
 * @np: the node, or NULL (nothing done)
 * @file: the caller's file, for the report of a misuse (may be NULL)
 * @line: the caller's line
 *
 * Gives back the latest reference taken to @np. A put with no reference
 * left (below zero: the kernel would free the node) is reported
 * (DMAMAP_REPORT_API_MISUSE), as is a pointer that is no live node.
 */
DMAMAP_API void dmamap_of_node_put_at(struct device_node *np, const char *file, int line);

/**
 * dmamap_of_get_parent_at() - of_get_parent(): @np's parent, with a reference taken
 * @np: the node, or NULL
 * @file: the caller's file
 * @line: the caller's line
 *
 * Return: the parent, to give back with of_node_put(); NULL for NULL or a node without one.
 */
DMAMAP_API struct device_node *dmamap_of_get_parent_at(const struct device_node *np, const char *file, int line);

/**
 * dmamap_of_get_next_child_at() - of_get_next_child(): the child of @node after @prev
 * @node: the parent, or NULL (NULL returned)
 * @prev: the child returned last, or NULL for the first: its reference is put
 * @file: the caller's file (of for_each_child_of_node())
 * @line: the caller's line
 *
 * Return: the next child with a reference taken, or NULL after the last. A
 * walk left before its end keeps the reference to the child it stopped at,
 * to give back with of_node_put(), as in the kernel.
 */
DMAMAP_API struct device_node *dmamap_of_get_next_child_at(const struct device_node *node, struct device_node *prev,
							   const char *file, int line);

/**
 * dmamap_of_get_next_available_child_at() - of_get_next_available_child(): as
 * dmamap_of_get_next_child_at(), passing over the children of_device_is_available() refuses
 */
DMAMAP_API struct device_node *dmamap_of_get_next_available_child_at(const struct device_node *node,
								     struct device_node *prev, const char *file,
								     int line);

/**
 * dmamap_of_get_child_by_name_at() - of_get_child_by_name(): the first child of @node named @name
 * @node: the parent, or NULL
 * @name: the child's name without its unit address (of_node_name_eq())
 * @file: the caller's file
 * @line: the caller's line
 *
 * Return: the child, with a reference taken; NULL when there is none.
 */
DMAMAP_API struct device_node *dmamap_of_get_child_by_name_at(const struct device_node *node, const char *name,
							      const char *file, int line);

/** of_get_child_count() - how many children @np has (0 for NULL). */
DMAMAP_API int of_get_child_count(const struct device_node *np);

/** of_get_available_child_count() - how many children of @np of_device_is_available() accepts (0 for NULL). */
DMAMAP_API int of_get_available_child_count(const struct device_node *np);

/**
 * of_device_is_available() - whether @device is enabled: its "status" is "okay" or "ok", or absent
 * @device: the node, or NULL (false)
 */
DMAMAP_API bool of_device_is_available(const struct device_node *device);

/**
 * dmamap_of_parse_phandle_with_args_at() - of_parse_phandle_with_args() and its fixed and plain forms
 * @np: the node holding the list, or NULL (-ENOENT)
 * @list_name: the property: phandle cells, each followed by its argument cells
 * @cells_name: the property of each referred node giving its count of
 *              argument cells ("#dma-cells"), or NULL for @cell_count each
 * @cell_count: the count of argument cells when @cells_name is NULL, or
 *              when the referred node lacks @cells_name (negative: it may not)
 * @index: the entry wanted, from 0
 * @out_args: receives the node (with a reference taken, to give back with
 *            of_node_put()) and its argument cells; NULL: none taken
 * @file: the caller's file
 * @line: the caller's line
 *
 * A phandle of 0 is an empty entry, without arguments.
 * Return: 0; -ENOENT when the property is missing, @index is past its last
 * entry or names an empty one; -EINVAL for a negative @index or a malformed
 * list (a phandle no node of the machine has, a referred node without
 * @cells_name, more than MAX_PHANDLE_ARGS cells, arguments running past the
 * property's end), reported as DMAMAP_REPORT_BAD_INPUT at @file:@line.
 * @out_args is written only on success.
 */
DMAMAP_API int dmamap_of_parse_phandle_with_args_at(const struct device_node *np, const char *list_name,
						    const char *cells_name, int cell_count, int index,
						    struct of_phandle_args *out_args, const char *file, int line);

/**
 * dmamap_of_count_phandle_with_args_at() - of_count_phandle_with_args(): how many entries @list_name holds
 * @np: the node, or NULL (-ENOENT)
 * @list_name: the property
 * @cells_name: the referred nodes' count of argument cells, or NULL: each
 *              entry is a phandle alone, the count its cells
 * @file: the caller's file
 * @line: the caller's line
 *
 * Return: the count (empty entries included); -ENOENT when the property is
 * missing; -EINVAL (reported) for a malformed list, as
 * dmamap_of_parse_phandle_with_args_at().
 */
DMAMAP_API int dmamap_of_count_phandle_with_args_at(const struct device_node *np, const char *list_name,
						    const char *cells_name, const char *file, int line);

/**
 * dmamap_of_find_node_by_phandle_at() - of_find_node_by_phandle(): the node of the current machine with phandle @handle
 * @handle: the phandle (0: none)
 * @file: the caller's file
 * @line: the caller's line
 *
 * Return: the node, with a reference taken; NULL when there is none.
 */
DMAMAP_API struct device_node *dmamap_of_find_node_by_phandle_at(phandle handle, const char *file, int line);

/**
 * dmamap_of_reserved_mem_device_init_by_idx_at() - of_reserved_mem_device_init_by_idx(): give @dev a reserved region
 * @dev: the device
 * @np: the node holding "memory-region" (the device's own, usually)
 * @idx: the entry of "memory-region"
 * @file: the caller's file
 * @line: the caller's line
 *
 * The region node is compatible "shared-dma-pool", with "no-map" (the ARM
 * kernel's rule) and a "reg" of one address and one size, each of the
 * cells its parent's "#address-cells" and "#size-cells" give (one each
 * without a parent). Its memory becomes @dev's declared coherent memory
 * (dma_declare_coherent_memory(), at the bus address of its start), so
 * dma_alloc_coherent() serves @dev from it; it must be page-aligned RAM of
 * the machine that the test keeps for the region (pages it allocated) until
 * of_reserved_mem_device_release() or the device's release.
 * Return: 0, also for a region whose "status" disables it (nothing
 * assigned); -EINVAL for a NULL @dev or @np, a region that is not a
 * "shared-dma-pool" with "no-map", a malformed "reg", or memory
 * dma_declare_coherent_memory() refuses (reported); -ENODEV when
 * "memory-region" has no entry @idx; -EBUSY when @dev has declared memory
 * already; -ENOMEM.
 */
DMAMAP_API int dmamap_of_reserved_mem_device_init_by_idx_at(struct device *dev, struct device_node *np, int idx,
							    const char *file, int line);

/**
 * of_reserved_mem_device_release() - give back what of_reserved_mem_device_init*() gave @dev
 * @dev: the device
 *
 * Its declared memory is released (buffers still allocated from it are
 * reported as leaks); nothing happens for a device that was given none.
 */
DMAMAP_API void of_reserved_mem_device_release(struct device *dev);

/**
 * dmamap_of_parse_phandle_at() - of_parse_phandle(): the node entry @index of @phandle_name refers to
 *
 * dmamap_of_parse_phandle_with_args_at() of entries without arguments.
 * Return: the node, with a reference taken; NULL when there is none.
 */
static inline struct device_node *dmamap_of_parse_phandle_at(const struct device_node *np, const char *phandle_name,
							     int index, const char *file, int line)
{
	struct of_phandle_args args;

	if (dmamap_of_parse_phandle_with_args_at(np, phandle_name, NULL, 0, index, &args, file, line))
		return NULL;
	return args.np;
}

/** of_parse_phandle() - the node entry @index of @phandle_name refers to, with a reference; NULL when none. */
static inline struct device_node *of_parse_phandle(const struct device_node *np, const char *phandle_name, int index)
{
	return dmamap_of_parse_phandle_at(np, phandle_name, index, NULL, 0);
}

/** of_node_get() - take a reference to @np (see dmamap_of_node_get_at()). */
static inline struct device_node *of_node_get(struct device_node *np)
{
	return dmamap_of_node_get_at(np, NULL, 0);
}

/** of_node_put() - give back a reference of of_node_get() (see dmamap_of_node_put_at()). */
static inline void of_node_put(struct device_node *np)
{
	dmamap_of_node_put_at(np, NULL, 0);
}

/** of_fwnode_handle() - the firmware node handle of @np (NULL for NULL). */
static inline struct fwnode_handle *of_fwnode_handle(const struct device_node *np)
{
	return np ? (struct fwnode_handle *)&np->fwnode : NULL;
}

/** is_of_node() - whether @fwnode is a device-tree node: any real handle here. */
static inline bool is_of_node(const struct fwnode_handle *fwnode)
{
	return !IS_ERR_OR_NULL(fwnode);
}

/** to_of_node() - the device-tree node of @fwnode, or NULL. */
static inline struct device_node *to_of_node(const struct fwnode_handle *fwnode)
{
	return is_of_node(fwnode) ? (struct device_node *)((const char *)fwnode - offsetof(struct device_node, fwnode))
				  : NULL;
}

/** dev_fwnode() - @dev's firmware node: its of_node's handle, else dev->fwnode. */
static inline struct fwnode_handle *dev_fwnode(const struct device *dev)
{
	return dev->of_node ? of_fwnode_handle(dev->of_node) : dev->fwnode;
}

/** dev_of_node() - @dev's device-tree node, or NULL. */
static inline struct device_node *dev_of_node(const struct device *dev)
{
	return dev->of_node;
}

/** of_node_full_name() - @np's name with its unit address, "<no-node>" for NULL. */
static inline const char *of_node_full_name(const struct device_node *np)
{
	return np ? np->full_name : "<no-node>";
}

/** of_property_read_bool() - whether @np has property @propname (a boolean is present or not). */
static inline bool of_property_read_bool(const struct device_node *np, const char *propname)
{
	return of_find_property(np, propname, NULL) != NULL;
}

/** of_property_present() - whether @np has property @propname. */
static inline bool of_property_present(const struct device_node *np, const char *propname)
{
	return of_property_read_bool(np, propname);
}

/** of_property_read_u8_array() - read exactly @sz u8 values of @propname: 0 or an error as the variable form's. */
static inline int of_property_read_u8_array(const struct device_node *np, const char *propname, u8 *out_values,
					    size_t sz)
{
	int ret = of_property_read_variable_u8_array(np, propname, out_values, sz, 0);

	return ret < 0 ? ret : 0;
}

/** of_property_read_u16_array() - read exactly @sz u16 values of @propname: 0 or an error. */
static inline int of_property_read_u16_array(const struct device_node *np, const char *propname, u16 *out_values,
					     size_t sz)
{
	int ret = of_property_read_variable_u16_array(np, propname, out_values, sz, 0);

	return ret < 0 ? ret : 0;
}

/** of_property_read_u32_array() - read exactly @sz u32 cells of @propname: 0 or an error. */
static inline int of_property_read_u32_array(const struct device_node *np, const char *propname, u32 *out_values,
					     size_t sz)
{
	int ret = of_property_read_variable_u32_array(np, propname, out_values, sz, 0);

	return ret < 0 ? ret : 0;
}

/** of_property_read_u64_array() - read exactly @sz u64 values of @propname: 0 or an error. */
static inline int of_property_read_u64_array(const struct device_node *np, const char *propname, u64 *out_values,
					     size_t sz)
{
	int ret = of_property_read_variable_u64_array(np, propname, out_values, sz, 0);

	return ret < 0 ? ret : 0;
}

/** of_property_read_u8() - the first u8 value of @propname: 0 or an error. */
static inline int of_property_read_u8(const struct device_node *np, const char *propname, u8 *out_value)
{
	return of_property_read_u8_array(np, propname, out_value, 1);
}

/** of_property_read_u16() - the first u16 value of @propname: 0 or an error. */
static inline int of_property_read_u16(const struct device_node *np, const char *propname, u16 *out_value)
{
	return of_property_read_u16_array(np, propname, out_value, 1);
}

/** of_property_read_u32() - the first u32 cell of @propname: 0 or an error. */
static inline int of_property_read_u32(const struct device_node *np, const char *propname, u32 *out_value)
{
	return of_property_read_u32_array(np, propname, out_value, 1);
}

/** of_property_read_s32() - the first cell of @propname as signed: 0 or an error. */
static inline int of_property_read_s32(const struct device_node *np, const char *propname, s32 *out_value)
{
	return of_property_read_u32(np, propname, (u32 *)out_value);
}

/** of_property_read_u64() - the first u64 value (two cells) of @propname: 0 or an error. */
static inline int of_property_read_u64(const struct device_node *np, const char *propname, u64 *out_value)
{
	return of_property_read_u64_array(np, propname, out_value, 1);
}

/** of_property_count_u8_elems() - how many u8 values @propname holds, or an error. */
static inline int of_property_count_u8_elems(const struct device_node *np, const char *propname)
{
	return of_property_count_elems_of_size(np, propname, sizeof(u8));
}

/** of_property_count_u16_elems() - how many u16 values @propname holds, or an error. */
static inline int of_property_count_u16_elems(const struct device_node *np, const char *propname)
{
	return of_property_count_elems_of_size(np, propname, sizeof(u16));
}

/** of_property_count_u32_elems() - how many u32 cells @propname holds, or an error. */
static inline int of_property_count_u32_elems(const struct device_node *np, const char *propname)
{
	return of_property_count_elems_of_size(np, propname, sizeof(u32));
}

/** of_property_count_u64_elems() - how many u64 values @propname holds, or an error. */
static inline int of_property_count_u64_elems(const struct device_node *np, const char *propname)
{
	return of_property_count_elems_of_size(np, propname, sizeof(u64));
}

/** of_property_read_string_array() - up to @sz strings of @propname: how many, or an error. */
static inline int of_property_read_string_array(const struct device_node *np, const char *propname,
						const char **out_strs, size_t sz)
{
	return of_property_read_string_helper(np, propname, out_strs, sz, 0);
}

/** of_property_count_strings() - how many strings @propname holds, or an error. */
static inline int of_property_count_strings(const struct device_node *np, const char *propname)
{
	return of_property_read_string_helper(np, propname, NULL, 0, 0);
}

/** of_property_read_string_index() - the @index-th string of @propname: 0 or an error. */
static inline int of_property_read_string_index(const struct device_node *np, const char *propname, int index,
						const char **output)
{
	int rc = of_property_read_string_helper(np, propname, output, 1, index);

	return rc < 0 ? rc : 0;
}

/** fwnode_property_read_bool() - whether @fwnode has property @propname. */
static inline bool fwnode_property_read_bool(const struct fwnode_handle *fwnode, const char *propname)
{
	return fwnode_property_present(fwnode, propname);
}

/** fwnode_property_read_u32() - the first u32 value of @propname: 0 or an error. */
static inline int fwnode_property_read_u32(const struct fwnode_handle *fwnode, const char *propname, u32 *val)
{
	return fwnode_property_read_u32_array(fwnode, propname, val, 1);
}

/** fwnode_property_read_string() - the first string of @propname: 0 or an error. */
static inline int fwnode_property_read_string(const struct fwnode_handle *fwnode, const char *propname,
					      const char **val)
{
	int ret = fwnode_property_read_string_array(fwnode, propname, val, 1);

	return ret < 0 ? ret : 0;
}

/** fwnode_device_is_compatible() - whether @fwnode's "compatible" lists @compat. */
static inline bool fwnode_device_is_compatible(const struct fwnode_handle *fwnode, const char *compat)
{
	return of_device_is_compatible(to_of_node(fwnode), compat) > 0;
}

/** device_property_present() - whether @dev's firmware node has property @propname. */
static inline bool device_property_present(const struct device *dev, const char *propname)
{
	return fwnode_property_present(dev_fwnode(dev), propname);
}

/** device_property_read_bool() - whether @dev's firmware node has property @propname. */
static inline bool device_property_read_bool(const struct device *dev, const char *propname)
{
	return device_property_present(dev, propname);
}

/** device_property_read_u8_array() - fwnode_property_read_u8_array() of @dev's node. */
static inline int device_property_read_u8_array(const struct device *dev, const char *propname, u8 *val, size_t nval)
{
	return fwnode_property_read_u8_array(dev_fwnode(dev), propname, val, nval);
}

/** device_property_read_u16_array() - fwnode_property_read_u16_array() of @dev's node. */
static inline int device_property_read_u16_array(const struct device *dev, const char *propname, u16 *val,
						 size_t nval)
{
	return fwnode_property_read_u16_array(dev_fwnode(dev), propname, val, nval);
}

/** device_property_read_u32_array() - fwnode_property_read_u32_array() of @dev's node. */
static inline int device_property_read_u32_array(const struct device *dev, const char *propname, u32 *val,
						 size_t nval)
{
	return fwnode_property_read_u32_array(dev_fwnode(dev), propname, val, nval);
}

/** device_property_read_u64_array() - fwnode_property_read_u64_array() of @dev's node. */
static inline int device_property_read_u64_array(const struct device *dev, const char *propname, u64 *val,
						 size_t nval)
{
	return fwnode_property_read_u64_array(dev_fwnode(dev), propname, val, nval);
}

/** device_property_read_u8() - the first u8 value of @propname of @dev: 0 or an error. */
static inline int device_property_read_u8(const struct device *dev, const char *propname, u8 *val)
{
	return device_property_read_u8_array(dev, propname, val, 1);
}

/** device_property_read_u16() - the first u16 value of @propname of @dev: 0 or an error. */
static inline int device_property_read_u16(const struct device *dev, const char *propname, u16 *val)
{
	return device_property_read_u16_array(dev, propname, val, 1);
}

/** device_property_read_u32() - the first u32 value of @propname of @dev: 0 or an error. */
static inline int device_property_read_u32(const struct device *dev, const char *propname, u32 *val)
{
	return device_property_read_u32_array(dev, propname, val, 1);
}

/** device_property_read_u64() - the first u64 value of @propname of @dev: 0 or an error. */
static inline int device_property_read_u64(const struct device *dev, const char *propname, u64 *val)
{
	return device_property_read_u64_array(dev, propname, val, 1);
}

/** device_property_count_u8() - how many u8 values @propname of @dev holds, or an error. */
static inline int device_property_count_u8(const struct device *dev, const char *propname)
{
	return device_property_read_u8_array(dev, propname, NULL, 0);
}

/** device_property_count_u16() - how many u16 values @propname of @dev holds, or an error. */
static inline int device_property_count_u16(const struct device *dev, const char *propname)
{
	return device_property_read_u16_array(dev, propname, NULL, 0);
}

/** device_property_count_u32() - how many u32 values @propname of @dev holds, or an error. */
static inline int device_property_count_u32(const struct device *dev, const char *propname)
{
	return device_property_read_u32_array(dev, propname, NULL, 0);
}

/** device_property_count_u64() - how many u64 values @propname of @dev holds, or an error. */
static inline int device_property_count_u64(const struct device *dev, const char *propname)
{
	return device_property_read_u64_array(dev, propname, NULL, 0);
}

/** device_property_read_string_array() - fwnode_property_read_string_array() of @dev's node. */
static inline int device_property_read_string_array(const struct device *dev, const char *propname,
						    const char **val, size_t nval)
{
	return fwnode_property_read_string_array(dev_fwnode(dev), propname, val, nval);
}

/** device_property_string_array_count() - how many strings @propname of @dev holds, or an error. */
static inline int device_property_string_array_count(const struct device *dev, const char *propname)
{
	return device_property_read_string_array(dev, propname, NULL, 0);
}

/** device_property_read_string() - the first string of @propname of @dev: 0 or an error. */
static inline int device_property_read_string(const struct device *dev, const char *propname, const char **val)
{
	return fwnode_property_read_string(dev_fwnode(dev), propname, val);
}

/** device_property_match_string() - the index of @string among the strings of @propname of @dev. */
static inline int device_property_match_string(const struct device *dev, const char *propname, const char *string)
{
	return fwnode_property_match_string(dev_fwnode(dev), propname, string);
}

/** device_is_compatible() - whether @dev's "compatible" lists @compat. */
static inline bool device_is_compatible(const struct device *dev, const char *compat)
{
	return fwnode_device_is_compatible(dev_fwnode(dev), compat);
}

/**
 * dmamap_fwnode_get_next_child_node_at() - fwnode_get_next_child_node(): the available child after @child
 * @fwnode: the parent's handle, or NULL
 * @child: the child returned last (its reference is put), or NULL for the first
 * @file: the caller's file
 * @line: the caller's line
 *
 * dmamap_of_get_next_available_child_at() of the nodes behind the handles.
 * Return: the next child's handle with a reference taken, or NULL after the last.
 */
DMAMAP_API struct fwnode_handle *dmamap_fwnode_get_next_child_node_at(const struct fwnode_handle *fwnode,
								      struct fwnode_handle *child, const char *file,
								      int line);

/** fwnode_get_next_child_node() - the available child of @fwnode after @child (see dmamap_fwnode_get_next_child_node_at()). */
static inline struct fwnode_handle *fwnode_get_next_child_node(const struct fwnode_handle *fwnode,
							       struct fwnode_handle *child)
{
	return dmamap_fwnode_get_next_child_node_at(fwnode, child, NULL, 0);
}

/** device_get_next_child_node() - the available child of @dev's node after @child. */
static inline struct fwnode_handle *device_get_next_child_node(const struct device *dev, struct fwnode_handle *child)
{
	return fwnode_get_next_child_node(dev_fwnode(dev), child);
}

/** fwnode_handle_get() - take a reference to the node of @fwnode (of_node_get()); returns @fwnode. */
static inline struct fwnode_handle *fwnode_handle_get(struct fwnode_handle *fwnode)
{
	return of_fwnode_handle(of_node_get(to_of_node(fwnode)));
}

/** fwnode_handle_put() - give back a reference to the node of @fwnode (of_node_put()); NULL is fine. */
static inline void fwnode_handle_put(struct fwnode_handle *fwnode)
{
	of_node_put(to_of_node(fwnode));
}

/** device_get_child_node_count() - how many available children @dev's node has. */
static inline unsigned int device_get_child_node_count(const struct device *dev)
{
	return (unsigned int)of_get_available_child_count(to_of_node(dev_fwnode(dev)));
}

DMAMAP_END_DECLS

#endif /* DMAMAP_OF_H */
