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
 * gives its first cell, not an error), and there is no ACPI, no software
 * node and no child node.
 */
#ifndef _LINUX_PROPERTY_H
#define _LINUX_PROPERTY_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <linux/fwnode.h>
#include <dmamap/of.h>

#endif /* _LINUX_PROPERTY_H */
