/* SPDX-License-Identifier: MIT */
/*
 * The child nodes the device-tree suites give a device: port@0 ("okay"),
 * port@1 ("disabled") and port@2 (no status), each with its reg.
 * Include after <linux/property.h>, <linux/of.h> and "common.h".
 */
#ifndef DMAMAP_TEST_OF_PORTS_H
#define DMAMAP_TEST_OF_PORTS_H

static const struct property_entry port_props[][3] = {
	{ PROPERTY_ENTRY_U32("reg", 0), PROPERTY_ENTRY_STRING("status", "okay"), { } },
	{ PROPERTY_ENTRY_U32("reg", 1), PROPERTY_ENTRY_STRING("status", "disabled"), { } },
	{ PROPERTY_ENTRY_U32("reg", 2), { } },
};

/* Add port@0, port@1 and port@2 under @np, in that order, into @ports. */
static inline void add_ports(struct device_node *np, struct device_node **ports)
{
	static const char *const port_names[] = { "port@0", "port@1", "port@2" };

	for (int i = 0; i < 3; i++) {
		ports[i] = dmamap_of_node_add_child(np, port_names[i], port_props[i]);
		assert_false(IS_ERR(ports[i]));
	}
}

#endif
