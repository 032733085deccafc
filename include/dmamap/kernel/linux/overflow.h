/* SPDX-License-Identifier: MIT */
/*
 * <linux/overflow.h> of Linux 6.x over libdmamap: check_add_overflow(),
 * check_sub_overflow(), check_mul_overflow(), and the sizes that saturate at
 * SIZE_MAX (size_add(), size_sub(), size_mul(), array_size(), array3_size(),
 * flex_array_size(), struct_size(), struct_size_t()), defined in
 * <dmamap/linux-api.h>, which every kernel header of the library brings.
 */
#ifndef _LINUX_OVERFLOW_H
#define _LINUX_OVERFLOW_H

#include <dmamap/linux-api.h>

#endif /* _LINUX_OVERFLOW_H */
