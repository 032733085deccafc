/* SPDX-License-Identifier: MIT */
/*
 * <linux/property.h> of Linux 6.x over libdmamap (<dmamap/of.h>): the
 * firmware-agnostic readers, device_property_present(),
 * device_property_read_bool(), device_property_read_u8/16/32/64() and
 * their _array() and count forms, device_property_read_string(),
 * device_property_read_string_array(), device_property_match_string(),
 * device_is_compatible(), device_get_match_data(), their fwnode_*()
 * siblings and dev_fwnode(); struct property_entry and the
 * PROPERTY_ENTRY_*() initialisers a test describes a device with. Every
 * firmware node here is a device-tree node: a property is read as the
 * kernel reads one of a device tree (a u32 read of an 8-byte property
 * gives its first cell, not an error), and there is no ACPI and no
 * software node. Child nodes: device_get_child_node_count(),
 * device_for_each_child_node(), fwnode_for_each_child_node(),
 * fwnode_get_next_child_node(), device_get_next_child_node(),
 * fwnode_handle_get() and fwnode_handle_put(), which count references as
 * of_node_get() and of_node_put() do (a walk left early keeps one).
 */
#ifndef _LINUX_PROPERTY_H
#define _LINUX_PROPERTY_H

#include <dmamap/linux-api.h>
#include <linux/cleanup.h>
#include <linux/types.h>
#include <linux/fwnode.h>
#include <dmamap/of.h>

#define fwnode_get_next_child_node(fwnode, child) \
	dmamap_fwnode_get_next_child_node_at((fwnode), (child), __FILE__, __LINE__)
#define device_get_next_child_node(dev, child) \
	dmamap_fwnode_get_next_child_node_at(dev_fwnode(dev), (child), __FILE__, __LINE__)
#define fwnode_handle_get(fwnode) \
	of_fwnode_handle(dmamap_of_node_get_at(to_of_node(fwnode), __FILE__, __LINE__))
#define fwnode_handle_put(fwnode) dmamap_of_node_put_at(to_of_node(fwnode), __FILE__, __LINE__)

/* fwnode_for_each_child_node() - walk the available children of @fwnode with @child. */
#define fwnode_for_each_child_node(fwnode, child) \
	for (child = fwnode_get_next_child_node(fwnode, NULL); child; child = fwnode_get_next_child_node(fwnode, child))

/* device_for_each_child_node() - walk the available children of @dev's node with @child. */
#define device_for_each_child_node(dev, child) \
	for (child = device_get_next_child_node(dev, NULL); child; child = device_get_next_child_node(dev, child))

/* The free class of <linux/cleanup.h>: a handle's reference given back at scope exit. */
DEFINE_FREE(fwnode_handle, struct fwnode_handle *, if (_T) dmamap_of_node_put_at(to_of_node(_T), NULL, 0))

/* fwnode_for_each_available_child_node() - fwnode_for_each_child_node(): every child walked is available here. */
#define fwnode_for_each_available_child_node(fwnode, child) fwnode_for_each_child_node(fwnode, child)

/*
 * fwnode_for_each_child_node_scoped(), fwnode_for_each_available_child_node_scoped(),
 * device_for_each_child_node_scoped() - the walks with @child declared by the loop, its reference
 * given back however the loop is left (a break or return in it too).
 */
#define fwnode_for_each_child_node_scoped(fwnode, child)                                                     \
	for (struct fwnode_handle *child __free(fwnode_handle) = fwnode_get_next_child_node(fwnode, NULL); child; \
	     child = fwnode_get_next_child_node(fwnode, child))
#define fwnode_for_each_available_child_node_scoped(fwnode, child) fwnode_for_each_child_node_scoped(fwnode, child)
#define device_for_each_child_node_scoped(dev, child)                                                        \
	for (struct fwnode_handle *child __free(fwnode_handle) = device_get_next_child_node(dev, NULL); child;    \
	     child = device_get_next_child_node(dev, child))

#endif /* _LINUX_PROPERTY_H */
