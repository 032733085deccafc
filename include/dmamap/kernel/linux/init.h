/* SPDX-License-Identifier: MIT */
/*
 * <linux/init.h> of Linux 6.x over libdmamap: the section annotations of
 * init and exit code and data (__init, __exit, __initdata, __initconst,
 * __exitdata, __ref and the __devinit family of kernels before 3.8), which
 * put nothing in a section here: the functions stay, and a test may call
 * them as often as it likes. module_init(@fn) and module_exit(@fn), and the
 * initcall levels (core_initcall() to late_initcall()), check that @fn has
 * the type of an init function (int (void)) or an exit function
 * (void (void)) and otherwise do nothing: no code runs at load. The test
 * calls the driver's init and exit functions itself, by name (a file that
 * keeps them static exposes them, or includes the driver's source), when
 * its scenario wants the module loaded and unloaded.
 */
#ifndef _LINUX_INIT_H
#define _LINUX_INIT_H

#include <dmamap/linux-api.h>

/* The annotations: nothing, but that the function or data is kept even when unused. */
#define __init
#define __exit
#define __initdata
#define __initconst
#define __exitdata
#define __ref
#define __refdata
#define __meminit
#define __meminitdata
#define __devinit
#define __devexit
#define __devinitdata
#define __devinitconst
#define __devexit_p(x) (x)
#define __exit_p(x) (x)

/* initcall_t, exitcall_t - the types of an init function and an exit function. */
typedef int (*initcall_t)(void);
typedef void (*exitcall_t)(void);

/*
 * DMAMAP_INITCALL_() - a file-scope declaration of an unused constant that
 * holds @fn as a @type: the check that @fn has that type, and a use of @fn
 * (a static init function is then no unused function).
 */
#define DMAMAP_INITCALL_(type, fn, name) static const type name __attribute__((unused)) = (fn)
#define module_init(fn) DMAMAP_INITCALL_(initcall_t, fn, DMAMAP_PASTE(dmamap_module_init_, __LINE__))
#define module_exit(fn) DMAMAP_INITCALL_(exitcall_t, fn, DMAMAP_PASTE(dmamap_module_exit_, __LINE__))
#define pure_initcall(fn) module_init(fn)
#define core_initcall(fn) module_init(fn)
#define postcore_initcall(fn) module_init(fn)
#define arch_initcall(fn) module_init(fn)
#define subsys_initcall(fn) module_init(fn)
#define fs_initcall(fn) module_init(fn)
#define device_initcall(fn) module_init(fn)
#define late_initcall(fn) module_init(fn)
#define late_initcall_sync(fn) module_init(fn)

#endif /* _LINUX_INIT_H */
