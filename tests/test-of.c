/* SPDX-License-Identifier: MIT */
/*
 * Device-tree nodes and their readers, as a driver of Linux 6.x reaches
 * them: the node a test gives a platform device, the values as a flattened
 * tree stores them, the readers' results and errors, the driver's
 * of_match_table matched against "compatible", and the refusals that leave
 * a device as it was; child nodes walked as drivers walk them, phandle
 * lists followed to the machine's nodes, the references the walks take
 * counted (one never put reported at its line), and reserved memory handed
 * to a device as its coherent pool.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/of_platform.h>
#include <linux/of_reserved_mem.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include "common.h"
#include "of-ports.h"

static const char *const compat[] = { "acme,dma-v2", "acme,dma" };
static const u32 cells[] = { 0x10000000, 0x1000, 7 };
static const u16 shorts[] = { 0x1234, 0xfffe };
static const u8 bytes[] = { 'a', 'b', 'c' }; /* no NUL: not a string */
static const char *const names[] = { "tx", "rx", "err" };

static const struct property_entry props[] = {
	PROPERTY_ENTRY_STRING_ARRAY("compatible", compat),
	PROPERTY_ENTRY_U32_ARRAY("reg", cells),
	PROPERTY_ENTRY_U32("dma-channels", 8),
	PROPERTY_ENTRY_U64("dma-window", 0x0000000180000000ULL),
	PROPERTY_ENTRY_U16_ARRAY("shorts", shorts),
	PROPERTY_ENTRY_U8_ARRAY("bytes", bytes),
	PROPERTY_ENTRY_U8("one-byte", 0xa5),
	PROPERTY_ENTRY_STRING("label", "engine0"),
	PROPERTY_ENTRY_STRING_ARRAY("dma-names", names),
	PROPERTY_ENTRY_BOOL("dma-coherent"),
	{ }
};

/* A platform device of @f's machine described by @p as "dma-controller@10000000". */
static struct platform_device *described(struct current_fx *f, const struct property_entry *p)
{
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "acme-dma", 0);

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "dma-controller@10000000", p), 0);
	return pdev;
}

static void test_values_stored_as_a_device_tree_stores_them(void **state)
{
	static const u8 reg_be[] = { 0x10, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 7 };
	static const u8 window_be[] = { 0, 0, 0, 1, 0x80, 0, 0, 0 };
	static const char compat_bytes[] = "acme,dma-v2\0acme,dma";
	struct current_fx *f = *state;
	struct platform_device *pdev = described(f, props);
	struct device_node *np = pdev->dev.of_node;
	const u8 *v;
	int len = -1;

	assert_non_null(np);
	assert_ptr_equal(dev_fwnode(&pdev->dev), of_fwnode_handle(np));
	assert_ptr_equal(to_of_node(dev_fwnode(&pdev->dev)), np);
	assert_ptr_equal(dev_of_node(&pdev->dev), np);
	assert_string_equal(np->full_name, "dma-controller@10000000");
	assert_string_equal(np->name, "dma-controller");
	assert_string_equal(of_node_full_name(np), "dma-controller@10000000");
	assert_string_equal(of_node_full_name(NULL), "<no-node>");
	assert_true(of_node_name_eq(np, "dma-controller"));
	assert_false(of_node_name_eq(np, "dma-control"));
	assert_false(of_node_name_eq(np, "dma-controller@10000000"));
	assert_ptr_equal(of_node_get(np), np);
	of_node_put(np);

	v = of_get_property(np, "reg", &len);
	assert_int_equal(len, sizeof(reg_be));
	assert_memory_equal(v, reg_be, sizeof(reg_be));
	v = of_get_property(np, "dma-window", &len);
	assert_int_equal(len, 8);
	assert_memory_equal(v, window_be, 8);
	v = of_get_property(np, "compatible", &len);
	assert_int_equal(len, sizeof(compat_bytes));
	assert_memory_equal(v, compat_bytes, sizeof(compat_bytes));
	v = of_get_property(np, "shorts", &len);
	assert_int_equal(len, 4);
	assert_int_equal(v[0], 0x12);
	assert_int_equal(v[3], 0xfe);
	len = -1;
	assert_non_null(of_find_property(np, "dma-coherent", &len));
	assert_int_equal(len, 0);
	assert_null(of_get_property(np, "dma-coherent", NULL));
	len = -1;
	assert_null(of_find_property(np, "nope", &len));
	assert_int_equal(len, -1);
	assert_null(of_find_property(NULL, "reg", NULL));
	assert_null(of_find_property(np, NULL, NULL));

	/* the properties in the order given */
	{
		const struct property *pp;
		int i = 0;

		for_each_property_of_node(np, pp)
			assert_string_equal(pp->name, props[i++].name);
		assert_int_equal(i, ARRAY_SIZE(props) - 1);
	}
	dmamap_platform_device_destroy(pdev);
}

static void test_number_readers(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = described(f, props);
	struct device *dev = &pdev->dev;
	struct device_node *np = dev->of_node;
	u32 out[4] = { 0xdead, 0xdead, 0xdead, 0xdead }, v32 = 0xdead;
	u64 v64 = 0xdead;
	u16 v16[2] = { 0 };
	u8 v8[3] = { 0 }, b8 = 0;

	assert_int_equal(device_property_read_u32(dev, "dma-channels", &v32), 0);
	assert_int_equal(v32, 8);
	v32 = 0;
	assert_int_equal(of_property_read_u32(np, "dma-channels", &v32), 0);
	assert_int_equal(v32, 8);
	assert_int_equal(device_property_read_u32_array(dev, "reg", out, 3), 0);
	assert_int_equal(out[0], 0x10000000);
	assert_int_equal(out[1], 0x1000);
	assert_int_equal(out[2], 7);
	assert_int_equal(out[3], 0xdead);
	/* fewer than there are: the first ones */
	memset(out, 0, sizeof(out));
	assert_int_equal(of_property_read_u32_array(np, "reg", out, 2), 0);
	assert_int_equal(out[1], 0x1000);
	assert_int_equal(out[2], 0);
	/* more than there are: an error, nothing written */
	memset(out, 0x5a, sizeof(out));
	assert_int_equal(device_property_read_u32_array(dev, "reg", out, 4), -EOVERFLOW);
	assert_int_equal(of_property_read_u32_array(np, "reg", out, 4), -EOVERFLOW);
	assert_int_equal(out[0], 0x5a5a5a5a);

	/* a u64 is two cells, the high one first */
	assert_int_equal(device_property_read_u64(dev, "dma-window", &v64), 0);
	assert_int_equal(v64, 0x180000000ULL);
	assert_int_equal(of_property_read_u32(np, "dma-window", &v32), 0);
	assert_int_equal(v32, 1);
	assert_int_equal(of_property_read_u32_index(np, "dma-window", 1, &v32), 0);
	assert_int_equal(v32, 0x80000000u);
	assert_int_equal(of_property_read_u32_index(np, "reg", 2, &v32), 0);
	assert_int_equal(v32, 7);
	v32 = 0x77;
	assert_int_equal(of_property_read_u32_index(np, "reg", 3, &v32), -EOVERFLOW);
	assert_int_equal(of_property_read_u32_index(np, "nope", 0, &v32), -EINVAL);
	assert_int_equal(of_property_read_u32_index(np, "dma-coherent", 0, &v32), -ENODATA);
	assert_int_equal(v32, 0x77);
	/* a u64 read of one cell: too short */
	v64 = 0x77;
	assert_int_equal(of_property_read_u64(np, "dma-channels", &v64), -EOVERFLOW);
	assert_int_equal(v64, 0x77);

	assert_int_equal(device_property_read_u16_array(dev, "shorts", v16, 2), 0);
	assert_int_equal(v16[0], 0x1234);
	assert_int_equal(v16[1], 0xfffe);
	assert_int_equal(of_property_read_u8_array(np, "bytes", v8, 3), 0);
	assert_memory_equal(v8, "abc", 3);
	assert_int_equal(device_property_read_u8(dev, "one-byte", &b8), 0);
	assert_int_equal(b8, 0xa5);
	assert_int_equal(of_property_read_u16(np, "shorts", &v16[0]), 0);
	assert_int_equal(v16[0], 0x1234);

	/* counts: values of the width asked, or an error */
	assert_int_equal(device_property_count_u32(dev, "reg"), 3);
	assert_int_equal(of_property_count_u32_elems(np, "reg"), 3);
	assert_int_equal(device_property_count_u8(dev, "reg"), 12);
	assert_int_equal(device_property_count_u16(dev, "reg"), 6);
	assert_int_equal(device_property_count_u64(dev, "reg"), -EINVAL); /* 12 bytes: no whole u64s */
	assert_int_equal(of_property_count_u64_elems(np, "dma-window"), 1);
	assert_int_equal(device_property_count_u32(dev, "dma-coherent"), -ENODATA);
	assert_int_equal(device_property_count_u32(dev, "nope"), -EINVAL);
	assert_int_equal(of_property_count_elems_of_size(np, "reg", 0), -EINVAL);

	/* the variable form: as many as there are, between the bounds */
	memset(out, 0, sizeof(out));
	assert_int_equal(of_property_read_variable_u32_array(np, "reg", out, 2, 4), 3);
	assert_int_equal(out[2], 7);
	assert_int_equal(of_property_read_variable_u32_array(np, "reg", out, 1, 2), -EOVERFLOW);
	assert_int_equal(of_property_read_variable_u32_array(np, "reg", out, 4, 0), -EOVERFLOW);
	assert_int_equal(of_property_read_variable_u32_array(np, "reg", out, 3, 3), 3);
	assert_int_equal(of_property_read_variable_u32_array(np, "reg", out, 2, 0), 2);

	/* missing, valueless, and no node at all */
	v32 = 0x77;
	assert_int_equal(device_property_read_u32(dev, "nope", &v32), -EINVAL);
	assert_int_equal(device_property_read_u32(dev, "dma-coherent", &v32), -ENODATA);
	assert_int_equal(of_property_read_u32(NULL, "reg", &v32), -EINVAL);
	assert_int_equal(v32, 0x77);

	assert_true(device_property_present(dev, "dma-coherent"));
	assert_true(device_property_read_bool(dev, "dma-coherent"));
	assert_true(of_property_read_bool(np, "dma-coherent"));
	assert_true(of_property_present(np, "reg"));
	assert_true(fwnode_property_read_bool(dev_fwnode(dev), "reg"));
	assert_false(device_property_present(dev, "nope"));
	assert_false(device_property_read_bool(dev, "Dma-coherent")); /* names are compared exactly */
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

static void test_string_readers(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = described(f, props);
	struct device *dev = &pdev->dev;
	struct device_node *np = dev->of_node;
	const char *s = "unset", *arr[4] = { NULL };

	assert_int_equal(device_property_read_string(dev, "label", &s), 0);
	assert_string_equal(s, "engine0");
	assert_int_equal(of_property_read_string(np, "dma-names", &s), 0);
	assert_string_equal(s, "tx");
	assert_int_equal(device_property_string_array_count(dev, "dma-names"), 3);
	assert_int_equal(of_property_count_strings(np, "compatible"), 2);
	assert_int_equal(device_property_read_string_array(dev, "dma-names", arr, 4), 3);
	assert_string_equal(arr[0], "tx");
	assert_string_equal(arr[2], "err");
	assert_null(arr[3]);
	memset(arr, 0, sizeof(arr));
	assert_int_equal(of_property_read_string_array(np, "dma-names", arr, 2), 2);
	assert_string_equal(arr[1], "rx");
	assert_null(arr[2]);
	assert_int_equal(of_property_read_string_index(np, "dma-names", 2, &s), 0);
	assert_string_equal(s, "err");
	s = "unset";
	assert_int_equal(of_property_read_string_index(np, "dma-names", 3, &s), -ENODATA);
	assert_int_equal(of_property_read_string_helper(np, "dma-names", arr, 0, 0), -ENODATA);
	assert_int_equal(of_property_read_string_helper(np, "dma-names", arr, 1, -1), -EINVAL);

	assert_int_equal(device_property_match_string(dev, "dma-names", "rx"), 1);
	assert_int_equal(of_property_match_string(np, "dma-names", "err"), 2);
	assert_int_equal(device_property_match_string(dev, "dma-names", "RX"), -ENODATA);
	assert_int_equal(device_property_match_string(dev, "dma-names", "none"), -ENODATA);
	assert_int_equal(device_property_match_string(dev, "nope", "rx"), -EINVAL);
	assert_int_equal(of_property_match_string(np, "dma-names", NULL), -EINVAL);
	assert_int_equal(device_property_match_string(dev, "dma-coherent", "rx"), -ENODATA);

	/* bytes without a NUL are no string */
	assert_int_equal(device_property_read_string(dev, "bytes", &s), -EILSEQ);
	assert_int_equal(of_property_read_string(np, "bytes", &s), -EILSEQ);
	assert_int_equal(of_property_count_strings(np, "bytes"), -EILSEQ);
	assert_int_equal(of_property_match_string(np, "bytes", "abc"), -EILSEQ);
	/* a valueless or missing property */
	assert_int_equal(device_property_read_string(dev, "dma-coherent", &s), -ENODATA);
	assert_int_equal(of_property_read_string(np, "nope", &s), -EINVAL);
	assert_int_equal(device_property_string_array_count(dev, "nope"), -EINVAL);
	assert_string_equal(s, "unset");
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

static void test_device_without_a_node(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "bare", 0);
	struct device *dev = &pdev->dev;
	const char *s = "unset";
	u32 v = 0x77;

	assert_null(dev->of_node);
	assert_null(dev_fwnode(dev));
	assert_int_equal(device_property_read_u32(dev, "reg", &v), -EINVAL);
	assert_int_equal(device_property_count_u32(dev, "reg"), -EINVAL);
	assert_int_equal(device_property_read_string(dev, "label", &s), -EINVAL);
	assert_int_equal(device_property_string_array_count(dev, "label"), -EINVAL);
	assert_int_equal(device_property_match_string(dev, "label", "x"), -EINVAL);
	assert_false(device_property_present(dev, "reg"));
	assert_false(device_is_compatible(dev, "acme,dma"));
	assert_null(device_get_match_data(dev));
	assert_null(of_device_get_match_data(dev));
	assert_null(of_match_device(NULL, dev));
	assert_int_equal(v, 0x77);
	assert_string_equal(s, "unset");
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* ------------------------------------------------------------ matching */

struct acme_data {
	const char *model;
	int channels;
};

static const struct acme_data acme_v1 = { "v1", 4 }, acme_v2 = { "v2", 8 }, acme_any = { "by name", 1 };

/* The v1 entry comes first: the node's own order of "compatible" decides. */
static const struct of_device_id acme_of_match[] = {
	{ .compatible = "acme,dma", .data = &acme_v1 },
	{ .compatible = "acme,dma-v2", .data = &acme_v2 },
	{ .name = "dma-controller", .data = &acme_any },
	{ }
};
MODULE_DEVICE_TABLE(of, acme_of_match);

struct acme_probe_seen {
	const struct acme_data *match, *of_match;
	u32 channels;
	int probes;
};

static struct acme_probe_seen seen;

static int acme_probe(struct platform_device *pdev)
{
	const struct acme_data *data = device_get_match_data(&pdev->dev);

	seen.probes++;
	seen.match = data;
	seen.of_match = of_device_get_match_data(&pdev->dev);
	if (!data)
		return -ENODEV;
	if (device_property_read_u32(&pdev->dev, "dma-channels", &seen.channels))
		seen.channels = (u32)data->channels;
	return 0;
}

static struct platform_driver acme_driver = {
	.probe = acme_probe,
	.driver = {
		.name = "acme-dma",
		.of_match_table = of_match_ptr(acme_of_match),
	},
};

static void test_match_data_of_the_best_compatible(void **state)
{
	static const char *const v1_only[] = { "other,thing", "ACME,DMA" };
	const struct property_entry p_v1[] = { PROPERTY_ENTRY_STRING_ARRAY("compatible", v1_only), { } };
	const struct property_entry p_none[] = { PROPERTY_ENTRY_STRING("compatible", "other,thing"), { } };
	struct current_fx *f = *state;
	struct platform_device *pdev = described(f, props);

	/* "acme,dma-v2" stands first in the node: its entry wins over the table's first */
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(dmamap_platform_bind(pdev, &acme_driver), 0);
	assert_ptr_equal(pdev->dev.driver, &acme_driver.driver);
	assert_ptr_equal(seen.match, &acme_v2);
	assert_ptr_equal(seen.of_match, &acme_v2);
	assert_int_equal(seen.channels, 8);
	assert_ptr_equal(of_match_device(acme_of_match, &pdev->dev), &acme_of_match[1]);
	assert_true(device_is_compatible(&pdev->dev, "acme,dma"));
	dmamap_platform_unbind(pdev);
	assert_null(pdev->dev.driver);
	assert_null(device_get_match_data(&pdev->dev)); /* no driver, no match */
	assert_ptr_equal(of_match_device(acme_of_match, &pdev->dev), &acme_of_match[1]);

	/* compared ignoring case, the later string of the node */
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "dma@0", p_v1), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(dmamap_platform_bind(pdev, &acme_driver), 0);
	assert_ptr_equal(seen.match, &acme_v1);
	assert_int_equal(seen.channels, 4); /* no "dma-channels" now */
	dmamap_platform_unbind(pdev);

	/* no compatible entry, but the name entry matches */
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "dma-controller@4000", p_none), 0);
	assert_ptr_equal(of_match_node(acme_of_match, pdev->dev.of_node), &acme_of_match[2]);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(dmamap_platform_bind(pdev, &acme_driver), 0);
	assert_ptr_equal(seen.match, &acme_any);
	dmamap_platform_unbind(pdev);

	/* nothing matches: the probe sees NULL and declines */
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "uart@4000", p_none), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(dmamap_platform_bind(pdev, &acme_driver), -ENODEV);
	assert_int_equal(seen.probes, 1);
	assert_null(seen.match);
	assert_null(pdev->dev.driver);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

static void test_compatible_scores(void **state)
{
	static const char *const three[] = { "a,first", "a,second", "a,third" };
	const struct property_entry p[] = {
		PROPERTY_ENTRY_STRING_ARRAY("compatible", three),
		PROPERTY_ENTRY_STRING("device_type", "dma"),
		{ }
	};
	static const struct of_device_id by_type[] = {
		{ .compatible = "a,third", .type = "serial" }, /* the type must match too */
		{ .compatible = "a,third", .type = "dma" },
		{ .compatible = "a,second" },
		{ }
	};
	static const struct of_device_id typed_first[] = {
		{ .compatible = "a,second" },
		{ .compatible = "a,second", .type = "dma" },
		{ .compatible = "a,second", .type = "dma", .name = "eng" },
		{ }
	};
	static const struct of_device_id none[] = { { .compatible = "b,x" }, { .type = "serial" }, { } };
	static const struct of_device_id tie[] = { { .compatible = "a,third" }, { .compatible = "a,third" }, { } };
	struct current_fx *f = *state;
	struct platform_device *pdev = described(f, p);
	struct device_node *np = pdev->dev.of_node;
	int s1 = of_device_is_compatible(np, "a,first"), s2 = of_device_is_compatible(np, "a,second"),
	    s3 = of_device_is_compatible(np, "A,Third");

	assert_true(s1 > s2);
	assert_true(s2 > s3);
	assert_true(s3 > 0);
	assert_int_equal(of_device_is_compatible(np, "a,fourth"), 0);
	assert_int_equal(of_device_is_compatible(np, ""), 0);
	assert_int_equal(of_device_is_compatible(np, NULL), 0);
	assert_int_equal(of_device_is_compatible(NULL, "a,first"), 0);
	assert_true(fwnode_device_is_compatible(dev_fwnode(&pdev->dev), "a,third"));

	/* an earlier compatible outranks a type match on a later one */
	assert_ptr_equal(of_match_node(by_type, np), &by_type[2]);
	/* a type and a name add to the same compatible's score */
	assert_ptr_equal(of_match_node(typed_first, np), &typed_first[1]);
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "eng@1", p), 0);
	np = pdev->dev.of_node;
	assert_ptr_equal(of_match_node(typed_first, np), &typed_first[2]);
	assert_null(of_match_node(none, np));
	assert_ptr_equal(of_match_node(tie, np), &tie[0]); /* of equal scores, the table's first */
	assert_null(of_match_node(NULL, np));
	assert_null(of_match_node(typed_first, NULL));
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* ------------------------------------------------------------ refusals */

/* @dev's node is still @np, its "reg" read 3 cells, and @f saw one more bad-input report than @before. */
static void assert_node_kept(struct current_fx *f, struct device *dev, struct device_node *np, unsigned long before)
{
	assert_ptr_equal(dev->of_node, np);
	assert_ptr_equal(dev->fwnode, of_fwnode_handle(np));
	assert_int_equal(device_property_count_u32(dev, "reg"), 3);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], before + 1);
}

static void test_set_of_node_refusals(void **state)
{
	static const char *const with_null[] = { "ok", NULL };
	static const u32 two[] = { 1, 2 };
	struct property_entry bad[2] = { { 0 } };
	struct current_fx *f = *state;
	struct platform_device *pdev = described(f, props);
	struct device *dev = &pdev->dev;
	struct device_node *np = dev->of_node;
	struct device stray;
	struct capture pc;
	const struct property_entry twice[] = { PROPERTY_ENTRY_U32("x", 1), PROPERTY_ENTRY_U32("x", 2), { } };
	const struct property_entry refs[] = { { .name = "phandle-ref", .length = 8, .type = DEV_PROP_REF,
						 { .pointer = two } }, { } };
	const struct property_entry odd[] = { PROPERTY_ENTRY_U32_ARRAY_LEN("odd", two, 1), { } };
	unsigned long before;

	before = f->c.by_kind[DMAMAP_REPORT_BAD_INPUT];
	assert_int_equal(dmamap_device_set_of_node(dev, NULL, props), -EINVAL);
	assert_node_kept(f, dev, np, before);
	before++;
	assert_int_equal(dmamap_device_set_of_node(dev, "", props), -EINVAL);
	assert_node_kept(f, dev, np, before);
	before++;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", twice), -EINVAL);
	assert_node_kept(f, dev, np, before);
	assert_non_null(strstr(f->c.last, "given twice"));
	before++;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", refs), -EINVAL);
	assert_node_kept(f, dev, np, before);
	before++;

	/* a length that is no whole number of values, values at NULL, a NULL string, an unknown type... */
	bad[0] = (struct property_entry)PROPERTY_ENTRY_U32_ARRAY("odd", two);
	bad[0].length = 6;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	bad[0] = (struct property_entry)PROPERTY_ENTRY_U32_ARRAY("nul", two);
	bad[0].pointer = NULL;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	bad[0] = (struct property_entry)PROPERTY_ENTRY_STRING_ARRAY("strs", with_null);
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	bad[0] = (struct property_entry)PROPERTY_ENTRY_U32("t", 1);
	bad[0].type = (enum dev_prop_type)9;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	bad[0] = (struct property_entry)PROPERTY_ENTRY_U32("big", 1);
	bad[0].length = 16; /* inline values hold 8 bytes */
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	bad[0] = (struct property_entry)PROPERTY_ENTRY_U32("", 1);
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);

	/* fewer values than the array holds: fine */
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", odd), 0);
	assert_int_equal(device_property_count_u32(dev, "odd"), 1);
	assert_int_equal(dmamap_device_set_of_node(dev, "dma-controller@10000000", props), 0);
	np = dev->of_node;

	/* not while a driver is bound */
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(dmamap_platform_bind(pdev, &acme_driver), 0);
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", NULL), -EBUSY);
	assert_node_kept(f, dev, np, before++);
	dmamap_platform_unbind(pdev);

	/* a device that is not initialised: reports of no machine */
	memset(&stray, 0, sizeof(stray));
	capture_start(&pc, NULL);
	assert_int_equal(dmamap_device_set_of_node(&stray, "n@0", props), -EINVAL);
	assert_int_equal(dmamap_device_set_of_node(NULL, "n@0", props), -EINVAL);
	capture_stop(NULL);
	assert_null(stray.of_node);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], before);

	/* a node of no properties */
	assert_int_equal(dmamap_device_set_of_node(dev, "empty", NULL), 0);
	assert_null(dev->of_node->properties);
	assert_string_equal(dev->of_node->name, "empty");
	assert_false(device_property_present(dev, "reg"));
	dmamap_platform_device_destroy(pdev);
}

/* A failed allocation: -ENOMEM and the device keeps the node it had. */
static void test_set_of_node_out_of_memory(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = described(f, props);
	struct device_node *np = pdev->dev.of_node;
	const struct property_entry other[] = { PROPERTY_ENTRY_U32("x", 1), { } };

	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "other@0", other), -ENOMEM);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_ptr_equal(pdev->dev.of_node, np);
	assert_int_equal(device_property_count_u32(&pdev->dev, "reg"), 3);
	assert_false(device_property_present(&pdev->dev, "x"));
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "other@0", other), 0);
	assert_true(device_property_present(&pdev->dev, "x"));
	dmamap_platform_device_destroy(pdev);
}

/* A plain device's node goes with its release; a driver's own of_node pointer is left alone. */
static void test_node_goes_with_the_device(void **state)
{
	struct current_fx *f = *state;
	struct device dev, other;
	struct device_node *np;

	memset(&dev, 0, sizeof(dev));
	memset(&other, 0, sizeof(other));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	assert_int_equal(dmamap_device_init(&other, f->m, "child"), 0);
	assert_int_equal(dmamap_device_set_of_node(&dev, "plain@0", props), 0);
	np = dev.of_node;
	/* a child device pointed at its parent's node, as drivers do */
	other.of_node = np;
	assert_int_equal(device_property_count_u32(&other, "reg"), 3);
	other.of_node = NULL;
	dmamap_device_release(&other);
	dmamap_device_release(&dev);
	assert_null(dev.of_node);
	assert_null(dev.fwnode);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ children */

/* @f's "dma-controller@10000000" with children port@0, port@1 (disabled), port@2, and phy@0 under port@2. */
static struct platform_device *with_ports(struct current_fx *f, struct device_node **ports)
{
	static const struct property_entry phy[] = { PROPERTY_ENTRY_STRING("status", "ok"), { } };
	struct platform_device *pdev = described(f, props);

	add_ports(pdev->dev.of_node, ports);
	assert_false(IS_ERR(dmamap_of_node_add_child(ports[2], "phy@0", phy)));
	return pdev;
}

static void test_children_walked_in_order(void **state)
{
	struct current_fx *f = *state;
	struct device_node *ports[3], *child, *np;
	struct fwnode_handle *fw;
	struct platform_device *pdev = with_ports(f, ports);
	struct device *dev = &pdev->dev;
	int i = 0;
	u32 reg;

	np = dev->of_node;
	assert_ptr_equal(np->child, ports[0]);
	assert_ptr_equal(ports[0]->sibling, ports[1]);
	assert_null(ports[2]->sibling);
	assert_string_equal(ports[1]->name, "port");
	assert_int_equal(of_get_child_count(np), 3);
	assert_int_equal(of_get_available_child_count(np), 2);
	assert_int_equal(device_get_child_node_count(dev), 2);
	assert_int_equal(of_get_child_count(ports[2]), 1);
	assert_int_equal(of_get_child_count(ports[0]), 0);
	assert_int_equal(of_get_child_count(NULL), 0);

	for_each_child_of_node(np, child) {
		assert_ptr_equal(child, ports[i]);
		assert_ptr_equal(child->parent, np);
		assert_int_equal(of_property_read_u32(child, "reg", &reg), 0);
		assert_int_equal(reg, i);
		i++;
	}
	assert_int_equal(i, 3);
	i = 0;
	for_each_available_child_of_node(np, child) {
		assert_ptr_equal(child, ports[i]);
		i += 2;
	}
	assert_int_equal(i, 4);
	i = 0;
	device_for_each_child_node(dev, fw) {
		assert_ptr_equal(to_of_node(fw), ports[i]);
		assert_int_equal(fwnode_property_read_u32(fw, "reg", &reg), 0);
		assert_int_equal(reg, i);
		i += 2;
	}
	assert_int_equal(i, 4);
	/* the last child: nothing after it, its reference given back */
	child = of_get_next_child(np, of_node_get(ports[2]));
	assert_null(child);
	assert_null(of_get_next_child(NULL, NULL));

	child = of_get_child_by_name(np, "port");
	assert_ptr_equal(child, ports[0]);
	of_node_put(child);
	assert_null(of_get_child_by_name(np, "phy"));
	child = of_get_child_by_name(ports[2], "phy");
	assert_non_null(child);
	assert_string_equal(child->full_name, "phy@0");
	np = of_get_parent(child);
	assert_ptr_equal(np, ports[2]);
	of_node_put(np);
	of_node_put(child);
	assert_null(of_get_parent(dev->of_node));
	assert_null(of_get_parent(NULL));

	assert_true(of_device_is_available(ports[0]));  /* "okay" */
	assert_false(of_device_is_available(ports[1])); /* "disabled" */
	assert_true(of_device_is_available(ports[2]));  /* none */
	assert_true(of_device_is_available(ports[2]->child)); /* "ok" */
	assert_false(of_device_is_available(NULL));
	of_node_put(NULL);
	fwnode_handle_put(NULL);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

/* How the ports driver's probe leaves its walk, and the line of the walk. */
static struct {
	enum { WALK_ALL, WALK_BREAK, WALK_BREAK_PUT, WALK_FWNODE_BREAK } how;
	int line;
	struct device_node *found;
} walk;

static int ports_probe(struct platform_device *pdev)
{
	struct device_node *child;
	struct fwnode_handle *fw;

	if (walk.how == WALK_FWNODE_BREAK) {
		walk.line = __LINE__ + 1;
		device_for_each_child_node(&pdev->dev, fw)
			if (fwnode_property_present(fw, "reg"))
				break;
		walk.found = to_of_node(fw);
		return 0;
	}
	walk.line = __LINE__ + 1;
	for_each_child_of_node(pdev->dev.of_node, child) {
		u32 reg = 0;

		if (walk.how != WALK_ALL && !of_property_read_u32(child, "reg", &reg) && reg == 1)
			break;
	}
	walk.found = child;
	if (walk.how == WALK_BREAK_PUT)
		of_node_put(child);
	return 0;
}

static struct platform_driver ports_driver = {
	.probe = ports_probe,
	.driver = { .name = "acme-dma" },
};

/*
 * Bind the ports driver to @pdev to walk as @how, and unbind it: the walk
 * stopped at @found, nothing reported while bound, @reports in all after.
 */
static void bind_walk(struct current_fx *f, struct platform_device *pdev, int how, const struct device_node *found,
		      unsigned long reports)
{
	unsigned long before = f->c.reports;

	walk.how = how;
	assert_int_equal(dmamap_platform_bind(pdev, &ports_driver), 0);
	assert_ptr_equal(walk.found, found);
	assert_int_equal(f->c.reports, before);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, reports);
}

/* A walk left early keeps a reference: reported at unbind, at the walk's line; one given back is not. */
static void test_walk_left_early_leaks_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct device_node *ports[3];
	struct platform_device *pdev = with_ports(f, ports);
	const struct captured *r;

	bind_walk(f, pdev, WALK_ALL, NULL, 0);
	bind_walk(f, pdev, WALK_BREAK_PUT, ports[1], 0);
	bind_walk(f, pdev, WALK_BREAK, ports[1], 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 1);
	r = capture_find(&f->c, DMAMAP_REPORT_LEAK);
	assert_int_equal(r->line, walk.line);
	assert_non_null(strstr(r->file, "test-of.c"));
	assert_non_null(strstr(r->message, "port@1"));
	assert_non_null(strstr(r->message, "never put"));
	/* reported once: the next bind starts clean */
	bind_walk(f, pdev, WALK_ALL, NULL, 1);

	/* the fwnode walk counts the same way: the first available child with "reg" */
	bind_walk(f, pdev, WALK_FWNODE_BREAK, ports[0], 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 2);
	assert_int_equal(f->c.rec_last.line, walk.line);
	assert_non_null(strstr(f->c.rec_last.message, "port@0"));
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 2);
}

/* A plain device's release reports what was taken and not put; a put below zero is reported at its line. */
static void test_references_counted(void **state)
{
	struct current_fx *f = *state;
	struct device dev;
	struct device_node *np, *port;
	int line;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	assert_int_equal(dmamap_device_set_of_node(&dev, "plain@0", props), 0);
	np = dev.of_node;
	port = dmamap_of_node_add_child(np, "port@0", port_props[0]);
	assert_false(IS_ERR(port));

	/* balanced: nothing */
	assert_ptr_equal(of_node_get(np), np);
	assert_ptr_equal(of_node_get(np), np);
	of_node_put(np);
	of_node_put(np);
	assert_int_equal(f->c.reports, 0);
	/* one put more than got */
	line = __LINE__ + 1;
	of_node_put(np);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "below zero"));
	/* the iterator puts what it is handed: a child handed without a reference is a put too many */
	assert_null(of_get_next_child(np, port));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);

	line = __LINE__ + 1;
	port = of_get_child_by_name(np, "port");
	assert_non_null(port);
	dmamap_device_release(&dev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "port@0"));
	assert_null(dev.of_node);
	assert_int_equal(f->c.reports, 3);
}

/* Without memory: no child made; a reference not recorded is held all the same, its put no put too many. */
static void test_nodes_out_of_memory(void **state)
{
	struct current_fx *f = *state;
	struct device_node *ports[3], *child;
	struct platform_device *pdev = with_ports(f, ports);
	struct device_node *np = pdev->dev.of_node;
	int n = 0;

	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_ptr_equal(dmamap_of_node_add_child(np, "port@3", NULL), ERR_PTR(-ENOMEM));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_int_equal(of_get_child_count(np), 3);
	assert_null(ports[2]->sibling);

	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 1000000), 0);
	for_each_child_of_node(np, child)
		assert_ptr_equal(child, ports[n++]);
	child = of_get_child_by_name(np, "port");
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_int_equal(n, 3);
	assert_ptr_equal(child, ports[0]);
	of_node_put(child);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

/* A reference held on a machine's node at the machine's destroy: reported there, at its line. */
static void test_machine_node_leak_at_destroy(void **state)
{
	struct dmamap_machine *m = test_machine(0, NULL);
	struct device_node *dmac, *port;
	struct capture c;
	int line;

	(void)state;
	capture_start(&c, m);
	dmac = dmamap_of_node_create(m, "dma-controller@0", NULL);
	assert_false(IS_ERR(dmac));
	port = dmamap_of_node_add_child(dmac, "channel@1", NULL);
	assert_false(IS_ERR(port));
	line = __LINE__ + 1;
	assert_ptr_equal(of_get_next_child(dmac, NULL), port);
	dmamap_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.rec_last.line, line);
	assert_non_null(strstr(c.rec_last.message, "channel@1"));
}

/* ------------------------------------------------------------ phandles */

/*
 * Entry @index of @np's @list gives node @want and the @count cells of
 * @want_args, with a reference that is then given back: @cells_name
 * counted, or @cell_count when NULL.
 */
static void assert_entry(const struct device_node *np, const char *list, const char *cells_name, int cell_count,
			 int index, const struct device_node *want, int count, const u32 *want_args)
{
	struct of_phandle_args args;

	memset(&args, 0x5a, sizeof(args));
	if (cells_name)
		assert_int_equal(of_parse_phandle_with_args(np, list, cells_name, index, &args), 0);
	else
		assert_int_equal(of_parse_phandle_with_fixed_args(np, list, cell_count, index, &args), 0);
	assert_ptr_equal(args.np, want);
	assert_int_equal(args.args_count, count);
	for (int i = 0; i < count; i++)
		assert_int_equal(args.args[i], want_args[i]);
	of_node_put(args.np);
}

static void test_phandles_followed(void **state)
{
	static const struct property_entry dmac_props[] = { PROPERTY_ENTRY_U32("#dma-cells", 2), { } };
	static const struct property_entry dmac2_props[] = { PROPERTY_ENTRY_U32("#dma-cells", 1), { } };
	static const struct property_entry clk_props[] = { PROPERTY_ENTRY_U32("#clock-cells", 1), { } };
	static const struct property_entry iommu_props[] = { PROPERTY_ENTRY_U32("#iommu-cells", 0), { } };
	struct current_fx *f = *state;
	struct device_node *dmac = dmamap_of_node_create(f->m, "dma-controller@20000000", dmac_props);
	struct device_node *dmac2 = dmamap_of_node_create(f->m, "dma-controller@30000000", dmac2_props);
	struct device_node *clk = dmamap_of_node_create(f->m, "clock-controller@0", clk_props);
	struct device_node *iommu = dmamap_of_node_create(NULL, "iommu@40000000", iommu_props);
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "client", 0);
	const struct software_node_ref_args dmas[] = {
		SOFTWARE_NODE_REFERENCE(dmac, 3, 1),
		SOFTWARE_NODE_REFERENCE(dmac2, 9),
		SOFTWARE_NODE_REFERENCE(dmac, 5, 0),
	};
	const struct property_entry client[] = {
		PROPERTY_ENTRY_REF_ARRAY("dmas", dmas),
		PROPERTY_ENTRY_REF("clocks", clk, 7),
		PROPERTY_ENTRY_REF("iommus", iommu),
		{ }
	};
	struct of_phandle_args args, untouched;
	struct device_node *np, *n;
	u32 raw[8];

	assert_false(IS_ERR(dmac) || IS_ERR(dmac2) || IS_ERR(clk) || IS_ERR(iommu) || IS_ERR(pdev));
	assert_int_not_equal(dmac->phandle, 0);
	assert_int_not_equal(dmac->phandle, dmac2->phandle);
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "client@0", client), 0);
	np = pdev->dev.of_node;

	/* stored as a flattened tree stores it: the phandle cell, then the argument cells */
	assert_int_equal(of_property_count_u32_elems(np, "dmas"), 8);
	assert_int_equal(of_property_read_u32_array(np, "dmas", raw, 8), 0);
	assert_int_equal(raw[0], dmac->phandle);
	assert_int_equal(raw[1], 3);
	assert_int_equal(raw[2], 1);
	assert_int_equal(raw[3], dmac2->phandle);
	assert_int_equal(raw[4], 9);
	assert_int_equal(raw[5], dmac->phandle);
	assert_int_equal(raw[6], 5);
	assert_int_equal(raw[7], 0);
	assert_int_equal(of_property_count_u32_elems(np, "iommus"), 1);

	/* counts: each target's own "#dma-cells"; with none, every cell a phandle */
	assert_int_equal(of_count_phandle_with_args(np, "dmas", "#dma-cells"), 3);
	assert_int_equal(of_count_phandle_with_args(np, "dmas", NULL), 8);
	assert_int_equal(of_count_phandle_with_args(np, "clocks", "#clock-cells"), 1);
	assert_int_equal(of_count_phandle_with_args(np, "nope", "#dma-cells"), -ENOENT);

	assert_entry(np, "dmas", "#dma-cells", -1, 0, dmac, 2, (const u32[]){ 3, 1 });
	assert_entry(np, "dmas", "#dma-cells", -1, 1, dmac2, 1, (const u32[]){ 9 });
	/* index = count - 1, then = count */
	assert_entry(np, "dmas", "#dma-cells", -1, 2, dmac, 2, (const u32[]){ 5, 0 });
	memset(&args, 0x5a, sizeof(args));
	memcpy(&untouched, &args, sizeof(args));
	assert_int_equal(of_parse_phandle_with_args(np, "dmas", "#dma-cells", 3, &args), -ENOENT);
	assert_int_equal(of_parse_phandle_with_args(np, "dmas", "#dma-cells", -1, &args), -EINVAL);
	assert_int_equal(of_parse_phandle_with_args(np, "nope", "#dma-cells", 0, &args), -ENOENT);
	assert_int_equal(of_parse_phandle_with_args(NULL, "dmas", "#dma-cells", 0, &args), -ENOENT);
	assert_memory_equal(&args, &untouched, sizeof(args));

	/* fixed cells, zero cells */
	assert_int_equal(of_parse_phandle_with_fixed_args(np, "clocks", 1, 0, &args), 0);
	assert_ptr_equal(args.np, clk);
	of_node_put(args.np);
	assert_entry(np, "clocks", NULL, 1, 0, clk, 1, (const u32[]){ 7 });
	assert_int_equal(of_parse_phandle_with_args(np, "clocks", NULL, 0, &args), 0); /* no count: none */
	assert_ptr_equal(args.np, clk);
	assert_int_equal(args.args_count, 0);
	of_node_put(args.np);
	assert_entry(np, "iommus", "#iommu-cells", -1, 0, iommu, 0, NULL);
	assert_entry(np, "iommus", NULL, 0, 0, iommu, 0, NULL);
	n = of_parse_phandle(np, "iommus", 0);
	assert_ptr_equal(n, iommu);
	of_node_put(n);
	assert_null(of_parse_phandle(np, "iommus", 1));
	assert_null(of_parse_phandle(np, "nope", 0));
	n = of_parse_phandle(np, "dmas", 0);
	assert_ptr_equal(n, dmac);
	of_node_put(n);
	n = of_find_node_by_phandle(dmac2->phandle);
	assert_ptr_equal(n, dmac2);
	of_node_put(n);
	assert_null(of_find_node_by_phandle(0));
	assert_int_equal(f->c.reports, 0);

	/* a node referred to stays while the referring node lives */
	assert_int_equal(dmamap_of_node_destroy(dmac2), -EBUSY);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(of_count_phandle_with_args(np, "dmas", "#dma-cells"), 3);
	assert_int_equal(dmamap_of_node_destroy(np), -EINVAL); /* a device's: it goes with the device */
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(dmamap_of_node_destroy(dmac2), 0);
	assert_int_equal(dmamap_of_node_destroy(iommu), 0);
	assert_int_equal(dmamap_of_node_destroy(iommu), -EINVAL);
	assert_int_equal(f->c.reports, 3);
	/* dmac and clk go with the machine */
}

/* Malformed lists: -EINVAL, reported at the driver's line; the list stays readable. */
static void test_phandle_lists_malformed(void **state)
{
	static const struct property_entry no_cells[] = { PROPERTY_ENTRY_STRING("compatible", "acme,dma"), { } };
	static const struct property_entry three[] = { PROPERTY_ENTRY_U32("#dma-cells", 3), { } };
	static const struct property_entry many[] = { PROPERTY_ENTRY_U32("#dma-cells", 17), { } };
	struct current_fx *f = *state;
	struct device_node *bare = dmamap_of_node_create(f->m, "bare@0", no_cells);
	struct device_node *wide = dmamap_of_node_create(f->m, "wide@0", three);
	struct device_node *huge = dmamap_of_node_create(f->m, "huge@0", many);
	const u32 stray[] = { 0x7fffffff, 1 };
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "client", 0);
	const struct property_entry client[] = {
		PROPERTY_ENTRY_REF("bare", bare, 1),
		PROPERTY_ENTRY_REF("short", wide, 1, 2),
		PROPERTY_ENTRY_REF("huge", huge, 1),
		PROPERTY_ENTRY_U32_ARRAY("stray", stray),
		{ }
	};
	struct of_phandle_args args;
	struct device_node *np;
	int line;

	assert_false(IS_ERR(bare) || IS_ERR(wide) || IS_ERR(huge) || IS_ERR(pdev));
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "client@0", client), 0);
	np = pdev->dev.of_node;

	line = __LINE__ + 1;
	assert_int_equal(of_parse_phandle_with_args(np, "bare", "#dma-cells", 0, &args), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "without its cell count"));
	/* fixed cells stand in for a missing count */
	assert_int_equal(dmamap_of_parse_phandle_with_args_at(np, "bare", "#dma-cells", 1, 0, &args, NULL, 0), 0);
	assert_ptr_equal(args.np, bare);
	assert_int_equal(args.args[0], 1);
	of_node_put(args.np);
	line = __LINE__ + 1;
	assert_int_equal(of_count_phandle_with_args(np, "short", "#dma-cells"), -EINVAL);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "past the property's end"));
	assert_int_equal(of_parse_phandle_with_args(np, "huge", "#dma-cells", 0, &args), -EINVAL);
	assert_non_null(strstr(f->c.rec_last.message, "MAX_PHANDLE_ARGS"));
	assert_int_equal(of_parse_phandle_with_args(np, "stray", "#dma-cells", 0, &args), -EINVAL);
	assert_non_null(strstr(f->c.rec_last.message, "no node has"));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	/* a phandle without a node and fixed cells: the kernel gives the entry, of no node */
	assert_null(of_parse_phandle(np, "stray", 0));
	assert_int_equal(f->c.reports, 4);
	dmamap_platform_device_destroy(pdev);
}

/* A reference the board cannot store is refused, the device keeps its node; a machine's node is freed with what is held on it reported. */
static void test_board_refusals(void **state)
{
	static const struct property_entry one_cell[] = { PROPERTY_ENTRY_U32("#dma-cells", 1), { } };
	struct current_fx *f = *state;
	struct device_node *ports[3], *dmac = dmamap_of_node_create(f->m, "dma-controller@20000000", one_cell);
	struct platform_device *pdev = with_ports(f, ports);
	struct device *dev = &pdev->dev;
	struct device_node *np = dev->of_node, fake, *gone = dmamap_of_node_create(f->m, "gone@0", NULL);
	struct software_node_ref_args ref = SOFTWARE_NODE_REFERENCE(dmac, 1);
	struct property_entry bad[2] = { { 0 } };
	unsigned long before = 0;
	int line;

	assert_false(IS_ERR(dmac) || IS_ERR(gone));
	assert_int_equal(dmamap_of_node_destroy(gone), 0);
	memset(&fake, 0, sizeof(fake));
	bad[0] = (struct property_entry)PROPERTY_ENTRY_REF_ARRAY_LEN("dmas", &ref, 1);
	ref.node = &fake;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	assert_non_null(strstr(f->c.last, "no live node"));
	ref.node = gone;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	ref.node = NULL;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	ref.node = dmac;
	ref.nargs = NR_FWNODE_REFERENCE_ARGS + 1;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	ref.nargs = 1;
	ref.args[0] = 0x100000000ULL;
	assert_int_equal(dmamap_of_node_add_child(np, "port@3", bad), ERR_PTR(-EINVAL));
	assert_node_kept(f, dev, np, before++);
	ref.args[0] = 4;
	bad[0].length = sizeof(ref) - 1;
	assert_int_equal(dmamap_device_set_of_node(dev, "n@0", bad), -EINVAL);
	assert_node_kept(f, dev, np, before++);
	bad[0].length = sizeof(ref);
	assert_int_equal(of_get_child_count(np), 3);

	/* children: a name twice, no live parent, a bound driver */
	assert_int_equal(dmamap_of_node_add_child(np, "port@1", NULL), ERR_PTR(-EINVAL));
	assert_node_kept(f, dev, np, before++);
	assert_int_equal(dmamap_of_node_add_child(&fake, "port@3", NULL), ERR_PTR(-EINVAL));
	assert_node_kept(f, dev, np, before++);
	assert_int_equal(dmamap_of_node_add_child(NULL, "port@3", NULL), ERR_PTR(-EINVAL));
	assert_node_kept(f, dev, np, before++);
	assert_int_equal(dmamap_of_node_add_child(np, "", NULL), ERR_PTR(-EINVAL));
	assert_node_kept(f, dev, np, before++);
	walk.how = WALK_ALL;
	assert_int_equal(dmamap_platform_bind(pdev, &ports_driver), 0);
	assert_int_equal(dmamap_of_node_add_child(ports[0], "x@0", NULL), ERR_PTR(-EBUSY));
	assert_node_kept(f, dev, np, before++);
	dmamap_platform_unbind(pdev);
	assert_int_equal(of_get_child_count(np), 3);
	assert_int_equal(of_get_child_count(ports[0]), 0);
	assert_int_equal(dmamap_of_node_destroy(&fake), -EINVAL);
	assert_int_equal(dmamap_of_node_destroy(ports[0]), -EINVAL);
	before += 2;
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], before);

	/* accepted: the device's node refers to dmac, which then cannot go */
	assert_int_equal(dmamap_of_node_add_child(np, "port@3", bad) == NULL, 0);
	assert_int_equal(of_count_phandle_with_args(np->child->sibling->sibling->sibling, "dmas", "#dma-cells"), 1);
	assert_int_equal(dmamap_of_node_destroy(dmac), -EBUSY);
	dmamap_platform_device_destroy(pdev);

	/* a reference held on a machine's node: reported when it goes, at the line that took it */
	line = __LINE__ + 1;
	assert_ptr_equal(of_node_get(dmac), dmac);
	assert_int_equal(dmamap_of_node_destroy(dmac), 0);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "dma-controller@20000000"));
	/* a pointer of no live node */
	of_node_put(dmac);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], before + 2);
}

/* ------------------------------------------------------ reserved memory */

static void test_reserved_memory_serves_the_device(void **state)
{
	static const struct property_entry rmem_parent[] = {
		PROPERTY_ENTRY_U32("#address-cells", 1), PROPERTY_ENTRY_U32("#size-cells", 1), { }
	};
	struct current_fx *f = *state;
	struct page *pages = dmamap_alloc_pages(f->m, GFP_KERNEL, 2);
	phys_addr_t base = page_to_phys(pages);
	const u32 reg[] = { (u32)base, 4 * PAGE_SIZE };
	const u32 reg_hi[] = { (u32)base, 2 * PAGE_SIZE };
	const struct property_entry pool[] = {
		PROPERTY_ENTRY_STRING("compatible", "shared-dma-pool"),
		PROPERTY_ENTRY_U32_ARRAY("reg", reg),
		PROPERTY_ENTRY_BOOL("no-map"),
		{ }
	};
	const struct property_entry mapped[] = {
		PROPERTY_ENTRY_STRING("compatible", "shared-dma-pool"),
		PROPERTY_ENTRY_U32_ARRAY("reg", reg_hi),
		{ }
	};
	const struct property_entry off[] = {
		PROPERTY_ENTRY_STRING("compatible", "shared-dma-pool"),
		PROPERTY_ENTRY_U32_ARRAY("reg", reg),
		PROPERTY_ENTRY_BOOL("no-map"),
		PROPERTY_ENTRY_STRING("status", "disabled"),
		{ }
	};
	struct device_node *rsv = dmamap_of_node_create(f->m, "reserved-memory", rmem_parent);
	struct device_node *region, *nomap, *disabled;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "client", 0);
	struct device *dev = &pdev->dev;
	dma_addr_t h[5];
	void *cpu[5];
	int line;

	assert_non_null(pages);
	assert_false(IS_ERR(rsv) || IS_ERR(pdev));
	region = dmamap_of_node_add_child(rsv, "buffer@0", pool);
	nomap = dmamap_of_node_add_child(rsv, "mapped@0", mapped);
	disabled = dmamap_of_node_add_child(rsv, "off@0", off);
	assert_false(IS_ERR(region) || IS_ERR(nomap) || IS_ERR(disabled));
	{
		const struct software_node_ref_args regions[] = {
			SOFTWARE_NODE_REFERENCE(region),
			SOFTWARE_NODE_REFERENCE(nomap),
			SOFTWARE_NODE_REFERENCE(disabled),
		};
		const struct property_entry client[] = { PROPERTY_ENTRY_REF_ARRAY("memory-region", regions), { } };

		assert_int_equal(dmamap_device_set_of_node(dev, "client@0", client), 0);
	}
	assert_int_equal(dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32)), 0);

	/* without "no-map", past the last entry, disabled: nothing given */
	line = __LINE__ + 1;
	assert_int_equal(of_reserved_mem_device_init_by_idx(dev, dev->of_node, 1), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "no-map"));
	assert_int_equal(of_reserved_mem_device_init_by_idx(dev, dev->of_node, 3), -ENODEV);
	assert_int_equal(of_reserved_mem_device_init_by_idx(dev, dev->of_node, 2), 0);
	assert_int_equal(of_reserved_mem_device_init_by_idx(dev, rsv, 0), -ENODEV);
	assert_int_equal(of_reserved_mem_device_init_by_idx(dev, NULL, 0), -EINVAL);
	assert_null(dev->dma_mem);

	/* the region's pages serve the device's coherent allocations, and no more */
	assert_int_equal(of_reserved_mem_device_init(dev), 0);
	assert_non_null(dev->dma_mem);
	assert_int_equal(of_reserved_mem_device_init(dev), -EBUSY);
	for (int i = 0; i < 4; i++) {
		cpu[i] = dma_alloc_coherent(dev, PAGE_SIZE, &h[i], GFP_KERNEL);
		assert_non_null(cpu[i]);
		assert_true(h[i] >= base && h[i] < base + 4 * PAGE_SIZE);
	}
	cpu[4] = dma_alloc_coherent(dev, PAGE_SIZE, &h[4], GFP_KERNEL);
	assert_non_null(cpu[4]);
	assert_false(h[4] >= base && h[4] < base + 4 * PAGE_SIZE); /* full: from elsewhere */
	for (int i = 0; i < 5; i++)
		dma_free_coherent(dev, PAGE_SIZE, cpu[i], h[i]);

	of_reserved_mem_device_release(dev);
	assert_null(dev->dma_mem);
	of_reserved_mem_device_release(dev); /* none now: nothing */
	cpu[0] = dma_alloc_coherent(dev, PAGE_SIZE, &h[0], GFP_KERNEL);
	assert_false(h[0] >= base && h[0] < base + 4 * PAGE_SIZE);
	dma_free_coherent(dev, PAGE_SIZE, cpu[0], h[0]);

	/* given again, and left to the device's release */
	assert_int_equal(of_reserved_mem_device_init(dev), 0);
	assert_non_null(dev->dma_mem);
	assert_int_equal(f->c.reports, 1);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 1);
	dmamap_free_pages(pages, 2);
}

/* A region that is not RAM of the machine is refused as declared memory is. */
static void test_reserved_memory_not_ram(void **state)
{
	static const u32 reg[] = { 0xf0000000, 0x4000 };
	static const struct property_entry pool[] = {
		PROPERTY_ENTRY_STRING("compatible", "shared-dma-pool"),
		PROPERTY_ENTRY_U32_ARRAY("reg", reg),
		PROPERTY_ENTRY_BOOL("no-map"),
		{ }
	};
	static const struct property_entry other[] = { PROPERTY_ENTRY_STRING("compatible", "acme,sram"), { } };
	struct current_fx *f = *state;
	struct device_node *region = dmamap_of_node_create(f->m, "buffer@f0000000", pool);
	struct device_node *sram = dmamap_of_node_create(f->m, "sram@0", other);
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "client", 0);
	const struct property_entry client[] = {
		PROPERTY_ENTRY_REF("memory-region", region),
		PROPERTY_ENTRY_REF("sram", sram),
		{ }
	};

	assert_false(IS_ERR(region) || IS_ERR(sram) || IS_ERR(pdev));
	assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "client@0", client), 0);
	assert_int_equal(of_reserved_mem_device_init(&pdev->dev), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_non_null(strstr(f->c.rec_last.message, "RAM"));
	assert_null(pdev->dev.dma_mem);
	/* a node that is no shared-dma-pool */
	{
		const struct property_entry by_sram[] = { PROPERTY_ENTRY_REF("memory-region", sram), { } };

		assert_int_equal(dmamap_device_set_of_node(&pdev->dev, "client@0", by_sram), 0);
	}
	assert_int_equal(of_reserved_mem_device_init(&pdev->dev), -EINVAL);
	assert_non_null(strstr(f->c.rec_last.message, "shared-dma-pool"));
	assert_null(pdev->dev.dma_mem);
	assert_int_equal(f->c.reports, 2);
	dmamap_platform_device_destroy(pdev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_values_stored_as_a_device_tree_stores_them, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_number_readers, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_string_readers, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_device_without_a_node, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_match_data_of_the_best_compatible, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_compatible_scores, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_of_node_refusals, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_of_node_out_of_memory, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_node_goes_with_the_device, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_children_walked_in_order, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_walk_left_early_leaks_at_unbind, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_references_counted, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_nodes_out_of_memory, current_fx_setup, current_fx_teardown),
		cmocka_unit_test(test_machine_node_leak_at_destroy),
		cmocka_unit_test_setup_teardown(test_phandles_followed, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_phandle_lists_malformed, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_board_refusals, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_reserved_memory_serves_the_device, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_reserved_memory_not_ram, current_fx_setup, current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
