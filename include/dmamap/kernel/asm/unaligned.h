/* SPDX-License-Identifier: MIT */
/*
 * <asm/unaligned.h>, the name drivers before Linux 6.12 include for
 * get_unaligned_le32() and its relatives: <linux/unaligned.h>.
 */
#ifndef DMAMAP_KERNEL_ASM_UNALIGNED_H
#define DMAMAP_KERNEL_ASM_UNALIGNED_H

#include <linux/unaligned.h>

#endif /* DMAMAP_KERNEL_ASM_UNALIGNED_H */
