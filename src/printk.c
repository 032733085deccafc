/* SPDX-License-Identifier: MIT */
/*
 * The kernel's printk formats for what drivers log (dev_err(), pr_warn(),
 * WARN()...): printf's conversions, plus the %p extensions of
 * Documentation/core-api/printk-formats.rst a DMA driver prints with:
 *   %pad        a dma_addr_t, given by address: 0x and all its hex digits
 *   %pa, %pap   a phys_addr_t, likewise
 *   %pe         an ERR_PTR(): its errno's name (-ENOMEM), else the number
 *   %pM, %pMR   six bytes as a MAC address (R: reversed); %pm, %pmR without
 *               colons
 *   %ph, %phC, %phD, %phN
 *               a buffer in hex, with spaces, colons, dashes or nothing
 *               between bytes; the field width is its length (1 to 64, as
 *               the kernel's, default 1)
 *   %pI4        four bytes as an IPv4 address
 *   %p, %px, %pK, %pS, %ps, %pB
 *               the pointer (never hashed: this is a test host)
 * As in the kernel, every letter or digit after %p belongs to the
 * conversion: one not listed prints the pointer alone.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct out {
	char *buf;
	size_t size, len; /* len counts what would have been written, as snprintf's return */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - 1 - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void putf(struct out *o, const char *fmt, ...) DMAMAP_PRINTF(2, 3);

static void putf(struct out *o, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* One printf conversion @spec, built from the caller's format at run time, with its argument. */
static void put_spec(struct out *o, const char *spec, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, spec);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	n = vsnprintf(tmp, sizeof(tmp), spec, ap);
#pragma GCC diagnostic pop
	va_end(ap);
	if (n > 0)
		put(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static const char *errno_name(long e)
{
	switch (e) {
#define E(x) \
	case x:  \
		return #x
		E(EPERM); E(ENOENT); E(EINTR); E(EIO); E(ENXIO); E(E2BIG); E(EBADF); E(EAGAIN); E(ENOMEM);
		E(EACCES); E(EFAULT); E(EBUSY); E(EEXIST); E(ENODEV); E(EINVAL); E(ENOSPC); E(ERANGE);
		E(ENOSYS); E(ENODATA); E(ETIME); E(EPROTO); E(EOVERFLOW); E(EMSGSIZE); E(EOPNOTSUPP);
		E(ETIMEDOUT); E(ECONNRESET); E(ENOBUFS); E(EALREADY); E(EINPROGRESS); E(ECANCELED);
#undef E
	case 517:
		return "EPROBE_DEFER";
	case 524:
		return "ENOTSUPP";
	default:
		return NULL;
	}
}

/* A %p extension at @f (after "%p"), its pointer @p, field width @width (-1: none). Returns past its letters. */
static const char *pointer(struct out *o, const char *f, const void *p, int width)
{
	const unsigned char *b = p;

	if (!p && *f != 'e') {
		put(o, "(null)", 6);
	} else if (f[0] == 'a' && f[1] == 'd') {
		dma_addr_t a;

		memcpy(&a, p, sizeof(a));
		putf(o, "0x%0*llx", (int)(2 * sizeof(a)), (unsigned long long)a);
	} else if (f[0] == 'a') {
		phys_addr_t a;

		memcpy(&a, p, sizeof(a));
		putf(o, "0x%0*llx", (int)(2 * sizeof(a)), (unsigned long long)a);
	} else if (f[0] == 'e') {
		intptr_t v = (intptr_t)p;
		const char *name = v < 0 && v >= -4095 ? errno_name(-v) : NULL;

		if (name)
			putf(o, "-%s", name);
		else if (v < 0 && v >= -4095)
			putf(o, "%ld", (long)v);
		else
			putf(o, "%p", p);
	} else if (f[0] == 'M' || f[0] == 'm') {
		bool rev = f[1] == 'R';

		for (int i = 0; i < 6; i++) {
			if (i && f[0] == 'M')
				put(o, ":", 1);
			putf(o, "%02x", b[rev ? 5 - i : i]);
		}
	} else if (f[0] == 'h') {
		const char *sep = f[1] == 'C' ? ":" : f[1] == 'D' ? "-" : f[1] == 'N' ? "" : " ";
		int n = width < 0 ? 1 : width > 64 ? 64 : width;

		for (int i = 0; i < n; i++) {
			if (i)
				put(o, sep, strlen(sep));
			putf(o, "%02x", b[i]);
		}
	} else if (f[0] == 'I' && f[1] == '4') {
		putf(o, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	} else {
		putf(o, "%p", p);
	}
	while ((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z') || (*f >= '0' && *f <= '9'))
		f++;
	return f;
}

int dmamap_kernel_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	const char *f = fmt;

	while (*f) {
		const char *start = f, *conv;
		char spec[32];
		int width = -1, prec_star = 0;
		enum { L_NONE, L_HH, L_H, L_L, L_LL, L_Z, L_T, L_J, L_BIGL } len = L_NONE;

		if (*f != '%') {
			const char *next = strchr(f, '%');
			size_t n = next ? (size_t)(next - f) : strlen(f);

			put(&o, f, n);
			f += n;
			continue;
		}
		f++;
		if (*f == '%') {
			put(&o, "%", 1);
			f++;
			continue;
		}
		while (*f && strchr("-+ #0", *f))
			f++;
		if (*f == '*') {
			width = va_arg(ap, int);
			f++;
		} else {
			if (*f >= '0' && *f <= '9')
				width = 0;
			while (*f >= '0' && *f <= '9')
				width = width * 10 + (*f++ - '0');
		}
		if (*f == '.') {
			f++;
			if (*f == '*') {
				prec_star = va_arg(ap, int);
				f++;
				prec_star = prec_star < 0 ? -1 : prec_star; /* a negative precision is none */
			} else {
				while (*f >= '0' && *f <= '9')
					f++;
			}
		}
		if (f[0] == 'h' && f[1] == 'h') {
			len = L_HH;
			f += 2;
		} else if (f[0] == 'l' && f[1] == 'l') {
			len = L_LL;
			f += 2;
		} else if (*f && strchr("hlztjL", *f)) {
			len = *f == 'h' ? L_H : *f == 'l' ? L_L : *f == 'z' ? L_Z : *f == 't' ? L_T : *f == 'j' ? L_J : L_BIGL;
			f++;
		}
		conv = f;
		if (!*conv)
			break;
		f++;
		if (*conv == 'p' && len == L_NONE) {
			const void *p = va_arg(ap, const void *);

			f = pointer(&o, f, p, width);
			continue;
		}
		/* one printf conversion: its own text, with any '*' given as the number already taken */
		{
			size_t n = 0;
			char digits[24];

			for (const char *c = start; c <= conv && n < sizeof(spec) - 12; c++) {
				if (*c != '*') {
					spec[n++] = *c;
					continue;
				}
				snprintf(digits, sizeof(digits), "%d", c[-1] == '.' ? prec_star : width);
				if (c[-1] == '.' && prec_star < 0)
					n--; /* drop the '.' too */
				else
					for (const char *d = digits; *d && n < sizeof(spec) - 1; d++)
						spec[n++] = *d;
			}
			spec[n] = '\0';
		}
		switch (*conv) {
		case 'd':
		case 'i':
		case 'u':
		case 'x':
		case 'X':
		case 'o':
		case 'c':
			switch (len) {
			case L_L:
				put_spec(&o, spec, va_arg(ap, long));
				break;
			case L_LL:
			case L_J:
				put_spec(&o, spec, va_arg(ap, long long));
				break;
			case L_Z:
				put_spec(&o, spec, va_arg(ap, size_t));
				break;
			case L_T:
				put_spec(&o, spec, va_arg(ap, ptrdiff_t));
				break;
			default:
				put_spec(&o, spec, va_arg(ap, int));
				break;
			}
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);

			put_spec(&o, spec, s ? s : "(null)");
			break;
		}
		case 'e':
		case 'E':
		case 'f':
		case 'F':
		case 'g':
		case 'G':
		case 'a':
		case 'A':
			if (len == L_BIGL)
				put_spec(&o, spec, va_arg(ap, long double));
			else
				put_spec(&o, spec, va_arg(ap, double));
			break;
		case 'p':
			put_spec(&o, spec, va_arg(ap, void *));
			break;
		default:
			/* not a conversion (%n among them): its text as it stands */
			put(&o, start, (size_t)(f - start));
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

DMAMAP_API int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n;

	if (!fmt) {
		dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "scnprintf: NULL format");
		if (size)
			buf[0] = '\0';
		return 0;
	}
	if (!size)
		return 0;
	n = dmamap_kernel_vsnprintf(buf, size, fmt, ap);
	if (n < 0)
		return 0;
	return (size_t)n < size ? n : (int)(size - 1);
}

DMAMAP_API int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

char *dmamap_kernel_vasprintf_host(size_t *len, const char *fmt, va_list ap)
{
	va_list aq;
	char *buf;
	int n;

	va_copy(aq, ap);
	n = dmamap_kernel_vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	buf = malloc((size_t)n + 1);
	if (!buf)
		return NULL;
	dmamap_kernel_vsnprintf(buf, (size_t)n + 1, fmt, ap);
	*len = (size_t)n + 1;
	return buf;
}
