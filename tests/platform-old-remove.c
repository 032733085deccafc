/* SPDX-License-Identifier: MIT */
/*
 * A platform driver written for a kernel before 6.11, whose .remove returns
 * int, beside one of 6.3 to 6.10 that sets .remove_new: compiled apart from
 * test-linux-lib.c, which binds them, in the layout of those kernels.
 */
#define DMAMAP_PLATFORM_REMOVE_RETURNS_INT 1
#include <linux/platform_device.h>

#include "platform-old-remove.h"

static int old_probe(struct platform_device *pdev)
{
	int *removed = devm_kzalloc(&pdev->dev, sizeof(*removed), GFP_KERNEL);

	if (!removed)
		return -ENOMEM;
	platform_set_drvdata(pdev, removed);
	return 0;
}

static int old_remove(struct platform_device *pdev)
{
	old_remove_calls++;
	return old_remove_result;
}

static void new_remove(struct platform_device *pdev)
{
	(void)pdev;
	old_remove_calls += 100;
}

int old_remove_calls;
int old_remove_result;

struct platform_driver old_int_remove_driver = {
	.probe = old_probe,
	.remove = old_remove,
	.driver = { .name = "old-int-remove" },
};

struct platform_driver old_remove_new_driver = {
	.probe = old_probe,
	.remove_new = new_remove,
	.driver = { .name = "old-remove-new" },
};
