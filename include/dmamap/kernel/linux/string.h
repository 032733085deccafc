/* SPDX-License-Identifier: MIT */
/*
 * <linux/string.h> of Linux 6.x over libdmamap: the C library's <string.h>
 * (memcpy(), memset(), strlen()...), strscpy(), kmemdup_nul() (a kmalloc
 * string of the first len bytes of a buffer, NUL added), and kstrdup(),
 * kmemdup() and kmemdup_array(), which the kernel declares here and this
 * library with the rest of kmalloc in <linux/slab.h>.
 */
#ifndef _LINUX_STRING_H
#define _LINUX_STRING_H

#include <errno.h>
#include <string.h>
#include <sys/types.h>

#include <linux/slab.h>

/**
 * strscpy() - copy the string @src into @dst of @size bytes, always terminated
 * @dst: the destination, @size bytes
 * @src: the string
 * @size: bytes at @dst; 0 copies nothing
 *
 * As the kernel's: at most @size - 1 characters are copied and @dst is
 * NUL-terminated whenever @size is not 0.
 * Return: the characters copied (the NUL not counted); -E2BIG when @src did
 * not fit (@dst then holds its truncated start) or @size is 0.
 */
static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len;

	if (size == 0)
		return -E2BIG;
	for (len = 0; len < size - 1 && src[len]; len++)
		;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return src[len] ? -E2BIG : (ssize_t)len;
}

#define kmemdup_nul(s, len, gfp) dmamap_kmemdup_nul((s), (len), (gfp), __FILE__, __LINE__)

#endif /* _LINUX_STRING_H */
