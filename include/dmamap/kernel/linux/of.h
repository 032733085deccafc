/* SPDX-License-Identifier: MIT */
/*
 * <linux/of.h> of Linux 6.x over libdmamap (<dmamap/of.h>): struct
 * device_node and struct property, the of_property_read_*() family,
 * of_property_count_*_elems(), of_property_read_string*(),
 * of_property_match_string(), of_find_property(), of_get_property(),
 * of_device_is_compatible(), of_match_node(), of_node_name_eq(),
 * of_node_get()/of_node_put() and of_match_ptr(). A device's node is the
 * one a test gave it with dmamap_device_set_of_node(): there is no tree to
 * search (no of_find_node_by_*(), no parent or children, no phandles to
 * follow), and of_node_get()/of_node_put() count nothing, as a node lives
 * as long as its device.
 */
#ifndef _LINUX_OF_H
#define _LINUX_OF_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <linux/err.h>
#include <linux/mod_devicetable.h>
#include <linux/property.h>
#include <dmamap/of.h>

/* of_match_ptr() - @_ptr: the kernel's CONFIG_OF is always on here. */
#define of_match_ptr(_ptr) (_ptr)

/* for_each_property_of_node() - walk the properties of @dn with @pp. */
#define for_each_property_of_node(dn, pp) for (pp = (dn)->properties; pp != NULL; pp = pp->next)

#endif /* _LINUX_OF_H */
