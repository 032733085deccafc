// SPDX-License-Identifier: MIT
// The public headers compile as C++ (extern "C", no C-only constructs in
// declarations) and link: build a machine through the C API from C++.
#include <cstdio>
#include <cstring>
#include <type_traits>

/*
 * A header that uses the C++ keyword `private` as an identifier (struct
 * page's member) does not compile as C++ at all, which would break the whole
 * build. Rename the token while the headers are read, so that this test still
 * builds and can FAIL at run time, naming the problem; once the headers no
 * longer use the keyword the rename is a no-op.
 */
#define private dmamap_cxx_keyword_private
#include <dmamap/dmamap.h>
#undef private

template <typename T, typename = void> struct has_keyword_member : std::false_type {};
template <typename T>
struct has_keyword_member<T, decltype((void)&T::dmamap_cxx_keyword_private, void())> : std::true_type {};

static_assert(sizeof(dma_addr_t) == 8, "dma_addr_t is 64-bit");
static_assert(sizeof(phys_addr_t) == 8, "phys_addr_t is 64-bit");
static_assert(PAGE_SIZE == 4096, "4 KiB pages");
static_assert(IRQ_NONE == 0 && IRQ_HANDLED == 1 && IRQ_WAKE_THREAD == 2, "kernel irqreturn values");
static_assert(std::is_same<irq_handler_t, irqreturn_t (*)(int, void *)>::value, "irq_handler_t as the kernel's");
static_assert(DMA_TO_DEVICE == 1 && DMA_FROM_DEVICE == 2 && DMA_NONE == 3, "kernel direction values");

static int fail(const char *what)
{
	std::fprintf(stderr, "test-cxx-headers: %s\n", what);
	return 1;
}

int main()
{
	int rc = 0;

	if (has_keyword_member<struct page>::value)
		rc = fail("<dmamap/page.h>: struct page has a member named 'private', a C++ keyword: "
			  "the public headers do not compile as C++");

	struct dmamap_machine_config cfg;
	std::memset(&cfg, 0xa5, sizeof(cfg));
	dmamap_machine_config_init(&cfg);
	if (cfg.ram_base != 0x40000000ULL || cfg.cache_line_size != 32 || cfg.seed != 1)
		return fail("config defaults");
	cfg.ram_size = 16ULL << 20;
	cfg.consistent_size = 2u << 20;

	struct dmamap_machine *m = dmamap_machine_create(&cfg);
	if (!m)
		return fail("dmamap_machine_create");

	struct dmamap_machine_config got;
	dmamap_machine_get_config(m, &got);
	if (got.ram_size != cfg.ram_size)
		return fail("dmamap_machine_get_config");

	struct page *p = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 1);
	if (!p || !PageFlag(p, PG_head) || page_count(p) != 1)
		return fail("dmamap_alloc_pages");
	unsigned char *va = static_cast<unsigned char *>(page_address(p));
	if (dmamap_machine_of(va) != m || virt_to_phys(va) != page_to_phys(p) || va[PAGE_SIZE + 7] != 0)
		return fail("page conversions");
	dmamap_free_pages(p, 1);

	struct device dev = {};
	if (dmamap_device_init(&dev, m, "cxx") != 0 || std::strcmp(dev_name(&dev), "cxx") != 0 ||
	    *dev.dma_mask != DMA_BIT_MASK(32))
		return fail("dmamap_device_init");
	dmamap_device_release(&dev);

	// a few of the inline helpers and macros
	if (get_order(PAGE_SIZE + 1) != 1 || PAGE_ALIGN(1UL) != PAGE_SIZE || !IS_ERR(ERR_PTR(-ENOMEM)) ||
	    PTR_ERR(ERR_PTR(-EINVAL)) != -EINVAL || !valid_dma_direction(DMA_BIDIRECTIONAL) ||
	    std::strcmp(dmamap_report_kind_name(DMAMAP_REPORT_LEAK), "leak") != 0)
		return fail("inline helpers");

	if (dmamap_report_count(m) != 0)
		return fail("unexpected reports");
	dmamap_machine_destroy(m);
	return rc;
}
