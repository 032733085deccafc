/* SPDX-License-Identifier: MIT */
/* struct device helpers: names, the machine a device lives on. */
#include "internal.h"

DMAMAP_API const char *dev_name(const struct device *dev)
{
	if (!dev)
		return "(null device)";
	if (dev->dmamap.magic != DM_DEVICE_MAGIC)
		return "(uninitialised device)";
	return dev->dmamap.name;
}

DMAMAP_API struct dmamap_machine *dmamap_dev_machine(const struct device *dev)
{
	if (!dev || dev->dmamap.magic != DM_DEVICE_MAGIC)
		return NULL;
	return dev->dmamap.machine;
}
