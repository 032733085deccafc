/* SPDX-License-Identifier: MIT */
/* The drivers of platform-old-remove.c, in the layout of kernels before 6.11. */
#ifndef DMAMAP_TEST_PLATFORM_OLD_REMOVE_H
#define DMAMAP_TEST_PLATFORM_OLD_REMOVE_H

struct platform_driver;

/* Its .remove returns old_remove_result and counts 1 in old_remove_calls. */
extern struct platform_driver old_int_remove_driver;
/* Its .remove_new counts 100 in old_remove_calls. */
extern struct platform_driver old_remove_new_driver;
extern int old_remove_calls;
extern int old_remove_result;

#endif
