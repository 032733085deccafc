/* SPDX-License-Identifier: MIT */
/*
 * <linux/module.h> of Linux 6.x over libdmamap: what a driver's module
 * boilerplate needs to compile, with no effect. A test links the driver into
 * its own program: there is no module to load, no parameter to set from
 * outside, no symbol table to export to.
 *
 *  - MODULE_LICENSE(), MODULE_AUTHOR(), MODULE_DESCRIPTION(),
 *    MODULE_VERSION(), MODULE_ALIAS(), MODULE_FIRMWARE(), MODULE_SOFTDEP(),
 *    MODULE_IMPORT_NS(): each checks its argument is a string literal, as
 *    the kernel's would fail to build otherwise, and declares nothing.
 *  - MODULE_DEVICE_TABLE(@type, @name): uses the table @name (so a static
 *    table is no unused variable); nothing is exported.
 *  - module_param(@name, @type, @perm), module_param_named(),
 *    module_param_array() and MODULE_PARM_DESC(): check that the variable
 *    has the parameter type's C type (int for int, bool for bool, char *
 *    for charp...) and use it; its value is the one the driver's file
 *    initialises it to, which a test changes by assigning the variable
 *    (it is the test's to reach).
 *  - EXPORT_SYMBOL() and its _GPL and _NS forms: a declaration of the
 *    symbol again; nothing more.
 *  - THIS_MODULE is a null struct module *; try_module_get() always
 *    succeeds and module_put() does nothing.
 *  - module_init() and module_exit() come with <linux/init.h>: see there;
 *    the test calls the functions itself.
 *
 * KBUILD_MODNAME, which kbuild defines for each file, is "dmamap_module"
 * unless the file or the build defines it first (-DKBUILD_MODNAME=...).
 */
#ifndef _LINUX_MODULE_H
#define _LINUX_MODULE_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <linux/init.h>

#ifndef KBUILD_MODNAME
#define KBUILD_MODNAME "dmamap_module"
#endif

DMAMAP_BEGIN_DECLS

/* struct module - a loaded module: never defined, only pointed at (NULL). */
struct module;

#define THIS_MODULE ((struct module *)0)

/** try_module_get() - take a reference on the module @m: nothing to take here; true. */
static inline bool try_module_get(struct module *m)
{
	(void)m;
	return true;
}

/** module_put() - drop a reference try_module_get() took: nothing to do. */
static inline void module_put(struct module *m)
{
	(void)m;
}

/* A file-scope declaration that checks @x is a string literal ("" x only concatenates with one). */
#ifdef __cplusplus
#define DMAMAP_MODULE_STRING_(x) static_assert(sizeof("" x) > 0, "a string literal")
#else
#define DMAMAP_MODULE_STRING_(x) _Static_assert(sizeof("" x) > 0, "a string literal")
#endif
#define MODULE_LICENSE(x) DMAMAP_MODULE_STRING_(x)
#define MODULE_AUTHOR(x) DMAMAP_MODULE_STRING_(x)
#define MODULE_DESCRIPTION(x) DMAMAP_MODULE_STRING_(x)
#define MODULE_VERSION(x) DMAMAP_MODULE_STRING_(x)
#define MODULE_ALIAS(x) DMAMAP_MODULE_STRING_(x)
#define MODULE_FIRMWARE(x) DMAMAP_MODULE_STRING_(x)
#define MODULE_SOFTDEP(x) DMAMAP_MODULE_STRING_(x)
#define MODULE_INFO(tag, x) DMAMAP_MODULE_STRING_(x)
/* The namespace is a string from Linux 6.13, a bare identifier before: both are taken. */
#define MODULE_IMPORT_NS(ns) DMAMAP_MODULE_STRING_("")
#define MODULE_PARM_DESC(name, desc) DMAMAP_MODULE_STRING_(desc)

#define MODULE_DEVICE_TABLE(type, name) \
	static const void *const DMAMAP_PASTE(dmamap_device_table_, __LINE__) __attribute__((unused)) = &(name)

/* The C type of each module_param() type name. */
#define DMAMAP_PARAM_T_byte unsigned char
#define DMAMAP_PARAM_T_short short
#define DMAMAP_PARAM_T_ushort unsigned short
#define DMAMAP_PARAM_T_int int
#define DMAMAP_PARAM_T_uint unsigned int
#define DMAMAP_PARAM_T_hexint unsigned int
#define DMAMAP_PARAM_T_long long
#define DMAMAP_PARAM_T_ulong unsigned long
#define DMAMAP_PARAM_T_ullong unsigned long long
#define DMAMAP_PARAM_T_charp char *
#define DMAMAP_PARAM_T_bool bool
#define DMAMAP_PARAM_T_invbool bool

#define module_param_named(name, value, type, perm)                                                   \
	static DMAMAP_PARAM_T_##type *const DMAMAP_PASTE(dmamap_param_, __LINE__) __attribute__((unused)) = \
		&(value) + 0 * sizeof(perm)
#define module_param(name, type, perm) module_param_named(name, name, type, perm)
#define module_param_unsafe(name, type, perm) module_param_named(name, name, type, perm)
#define module_param_array_named(name, array, type, nump, perm)                                       \
	static const void *const DMAMAP_PASTE(dmamap_param_num_, __LINE__) __attribute__((unused)) = (nump); \
	static DMAMAP_PARAM_T_##type *const DMAMAP_PASTE(dmamap_param_, __LINE__) __attribute__((unused)) = \
		&(array)[0] + 0 * sizeof(perm)
#define module_param_array(name, type, nump, perm) module_param_array_named(name, name, type, nump, perm)

/* A declaration of @sym again, which must be declared (and is defined in this file, as for the kernel). */
#define EXPORT_SYMBOL(sym) extern __typeof__(sym) sym
#define EXPORT_SYMBOL_GPL(sym) EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_NS(sym, ns) EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_NS_GPL(sym, ns) EXPORT_SYMBOL(sym)

DMAMAP_END_DECLS

#endif /* _LINUX_MODULE_H */
