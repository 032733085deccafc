/* SPDX-License-Identifier: MIT */
/*
 * <linux/of.h> of Linux 6.x over libdmamap (<dmamap/of.h>): struct
 * device_node and struct property, the of_property_read_*() family,
 * of_property_count_*_elems(), of_property_read_string*(),
 * of_property_match_string(), of_find_property(), of_get_property(),
 * of_device_is_compatible(), of_device_is_available(), of_match_node(),
 * of_node_name_eq(), of_match_ptr(); the tree: of_get_parent(),
 * of_get_next_child(), of_get_next_available_child(),
 * for_each_child_of_node(), for_each_available_child_of_node(),
 * of_get_child_by_name(), of_get_child_count(),
 * of_get_available_child_count(); phandles: of_parse_phandle(),
 * of_parse_phandle_with_args(), of_parse_phandle_with_fixed_args(),
 * of_count_phandle_with_args(), of_find_node_by_phandle(); and
 * of_node_get()/of_node_put(), which count references as the kernel's do:
 * one taken and never given back is reported at the line that took it. A
 * node is one a test described (dmamap_device_set_of_node(),
 * dmamap_of_node_add_child(), dmamap_of_node_create()): there is no
 * tree to search by path or compatible (no of_find_node_by_*() but by
 * phandle).
 */
#ifndef _LINUX_OF_H
#define _LINUX_OF_H

#include <dmamap/linux-api.h>
#include <linux/cleanup.h>
#include <linux/types.h>
#include <linux/err.h>
#include <linux/mod_devicetable.h>
#include <linux/property.h>
#include <dmamap/of.h>

/* of_match_ptr() - @_ptr: the kernel's CONFIG_OF is always on here. */
#define of_match_ptr(_ptr) (_ptr)

/* for_each_property_of_node() - walk the properties of @dn with @pp. */
#define for_each_property_of_node(dn, pp) for (pp = (dn)->properties; pp != NULL; pp = pp->next)

#define of_node_get(np) dmamap_of_node_get_at((np), __FILE__, __LINE__)
#define of_node_put(np) dmamap_of_node_put_at((np), __FILE__, __LINE__)
#define of_get_parent(np) dmamap_of_get_parent_at((np), __FILE__, __LINE__)
#define of_get_next_child(node, prev) dmamap_of_get_next_child_at((node), (prev), __FILE__, __LINE__)
#define of_get_next_available_child(node, prev) \
	dmamap_of_get_next_available_child_at((node), (prev), __FILE__, __LINE__)
#define of_get_child_by_name(node, name) dmamap_of_get_child_by_name_at((node), (name), __FILE__, __LINE__)
#define of_find_node_by_phandle(handle) dmamap_of_find_node_by_phandle_at((handle), __FILE__, __LINE__)
#define of_parse_phandle_with_args(np, list_name, cells_name, index, out_args)                              \
	dmamap_of_parse_phandle_with_args_at((np), (list_name), (cells_name), (cells_name) ? -1 : 0, (index), \
					     (out_args), __FILE__, __LINE__)
#define of_parse_phandle_with_fixed_args(np, list_name, cell_count, index, out_args) \
	dmamap_of_parse_phandle_with_args_at((np), (list_name), NULL, (cell_count), (index), (out_args), __FILE__, __LINE__)
#define of_parse_phandle(np, phandle_name, index) dmamap_of_parse_phandle_at((np), (phandle_name), (index), __FILE__, __LINE__)
#define of_count_phandle_with_args(np, list_name, cells_name) \
	dmamap_of_count_phandle_with_args_at((np), (list_name), (cells_name), __FILE__, __LINE__)

/* for_each_child_of_node() - walk the children of @parent with @child, in order (see of_get_next_child()). */
#define for_each_child_of_node(parent, child) \
	for (child = of_get_next_child(parent, NULL); child != NULL; child = of_get_next_child(parent, child))

/* for_each_available_child_of_node() - walk the available children of @parent with @child. */
#define for_each_available_child_of_node(parent, child)                                 \
	for (child = of_get_next_available_child(parent, NULL); child != NULL; \
	     child = of_get_next_available_child(parent, child))

/* The free class of <linux/cleanup.h>: struct device_node *np __free(device_node) = of_get_child_by_name(...). */
DEFINE_FREE(device_node, struct device_node *, if (_T) dmamap_of_node_put_at(_T, NULL, 0))

/*
 * for_each_child_of_node_scoped(), for_each_available_child_of_node_scoped() - the walks with @child
 * declared by the loop, its reference given back however the loop is left (a break or return in it too).
 */
#define for_each_child_of_node_scoped(parent, child)                                                          \
	for (struct device_node *child __free(device_node) = of_get_next_child(parent, NULL); child != NULL;      \
	     child = of_get_next_child(parent, child))
#define for_each_available_child_of_node_scoped(parent, child)                                                \
	for (struct device_node *child __free(device_node) = of_get_next_available_child(parent, NULL);         \
	     child != NULL; child = of_get_next_available_child(parent, child))

#endif /* _LINUX_OF_H */
