/* SPDX-License-Identifier: MIT */
/*
 * Every public function links from the SHARED library, with only the public
 * headers: each function declared DMAMAP_API in the headers <dmamap/dmamap.h>
 * brings in has its address taken here, is non-NULL, and is a dynamic symbol
 * exported by libdmamap.so itself (so nothing public was left hidden). Then
 * one real call sequence through the shared library.
 *
 * When a public header gains a function, add it to the table below.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmamap/dmamap.h>

/*
 * Weak references: a function declared but missing from the library must
 * not break the build; it shows as a NULL address and fails the test below,
 * by name. The few that the real call sequence uses stay strong references,
 * which also keeps libdmamap.so a needed library of this program.
 */
/* <dmamap/log.h> */
#pragma weak dmamap_set_log_handler
#pragma weak dmamap_set_log_level
#pragma weak dmamap_set_strict
#pragma weak dmamap_report_count_kind
#pragma weak dmamap_report_kind_name
#pragma weak dmamap_dev_printk
#pragma weak dmamap_printk
#pragma weak dmamap_warn_at
#pragma weak dmamap_bug_at
#pragma weak dmamap_refcount_report_at
#pragma weak vscnprintf
#pragma weak scnprintf
/* <dmamap/irq.h> */
#pragma weak dmamap_request_irq_at
#pragma weak dmamap_request_threaded_irq_at
#pragma weak dmamap_free_irq_at
#pragma weak dmamap_devm_request_irq_at
#pragma weak dmamap_devm_request_threaded_irq_at
#pragma weak dmamap_devm_free_irq_at
#pragma weak dmamap_irq_disable_at
#pragma weak dmamap_irq_enable_at
#pragma weak dmamap_irq_synchronize_at
#pragma weak dmamap_irq_raise
#pragma weak dmamap_irq_handlers
/* <dmamap/tasklet.h> */
#pragma weak dmamap_tasklet_init_at
#pragma weak dmamap_tasklet_schedule_at
#pragma weak dmamap_tasklet_disable_at
#pragma weak dmamap_tasklet_enable_at
#pragma weak dmamap_tasklet_kill_at
#pragma weak dmamap_tasklet_unlock_wait_at
#pragma weak dmamap_tasklet_trylock
#pragma weak dmamap_tasklet_unlock
#pragma weak dmamap_tasklet_scheduled
/* <dmamap/platform.h> */
#pragma weak dmamap_platform_device_create
#pragma weak dmamap_platform_device_create_res
#pragma weak platform_get_resource
#pragma weak platform_get_resource_byname
#pragma weak platform_get_irq_optional
#pragma weak platform_get_irq
#pragma weak platform_irq_count
#pragma weak dmamap_platform_bind
#pragma weak dmamap_platform_unbind
#pragma weak dmamap_platform_device_destroy
#pragma weak dmamap_devm_platform_get_and_ioremap_resource_at
#pragma weak dmamap_devm_platform_ioremap_resource_byname_at
#pragma weak dmamap_platform_regs
#pragma weak dmamap_platform_regs_byname
#pragma weak platform_device_add_data
/* <dmamap/pm.h> */
#pragma weak dmamap_pm_runtime_idle_at
#pragma weak dmamap_pm_runtime_suspend_at
#pragma weak dmamap_pm_runtime_resume_at
#pragma weak dmamap_pm_runtime_resume_and_get_at
#pragma weak dmamap_pm_runtime_get_noresume_at
#pragma weak dmamap_pm_runtime_put_noidle_at
#pragma weak dmamap_pm_runtime_get_if_active_at
#pragma weak dmamap_pm_runtime_enable_at
#pragma weak dmamap_pm_runtime_disable_at
#pragma weak dmamap_devm_pm_runtime_enable_at
#pragma weak dmamap_pm_runtime_set_status_at
#pragma weak dmamap_pm_runtime_mark_last_busy_at
#pragma weak dmamap_pm_runtime_use_autosuspend_at
#pragma weak dmamap_pm_runtime_set_autosuspend_delay_at
#pragma weak dmamap_pm_runtime_allow_at
#pragma weak dmamap_pm_runtime_no_callbacks_at
#pragma weak dmamap_pm_runtime_irq_safe_at
#pragma weak pm_runtime_active
#pragma weak pm_runtime_suspended
#pragma weak pm_runtime_status_suspended
#pragma weak pm_runtime_enabled
#pragma weak pm_runtime_is_irq_safe
#pragma weak pm_runtime_autosuspend_expiration
#pragma weak pm_runtime_force_suspend
#pragma weak pm_runtime_force_resume
#pragma weak dmamap_pm_runtime_info
#pragma weak dmamap_pm_runtime_run_timer
/* <dmamap/of.h> */
#pragma weak dmamap_device_set_of_node
#pragma weak of_find_property
#pragma weak of_get_property
#pragma weak of_property_count_elems_of_size
#pragma weak of_property_read_variable_u8_array
#pragma weak of_property_read_variable_u16_array
#pragma weak of_property_read_variable_u32_array
#pragma weak of_property_read_variable_u64_array
#pragma weak of_property_read_u32_index
#pragma weak of_property_read_string_helper
#pragma weak of_property_read_string
#pragma weak of_property_match_string
#pragma weak of_device_is_compatible
#pragma weak of_node_name_eq
#pragma weak of_match_node
#pragma weak of_match_device
#pragma weak of_device_get_match_data
#pragma weak device_get_match_data
#pragma weak fwnode_property_present
#pragma weak fwnode_property_read_u32_array
#pragma weak fwnode_property_read_u8_array
#pragma weak fwnode_property_read_u16_array
#pragma weak fwnode_property_read_u64_array
#pragma weak fwnode_property_read_string_array
#pragma weak fwnode_property_match_string
/* <dmamap/firmware.h> */
#pragma weak dmamap_firmware_add
#pragma weak dmamap_firmware_remove
#pragma weak dmamap_firmware_loaded
#pragma weak dmamap_request_firmware_at
#pragma weak dmamap_request_firmware_nowait_at
#pragma weak dmamap_release_firmware_at
#pragma weak dmamap_of_node_add_child
#pragma weak dmamap_of_node_create
#pragma weak dmamap_of_node_destroy
#pragma weak dmamap_of_node_get_at
#pragma weak dmamap_of_node_put_at
#pragma weak dmamap_of_get_parent_at
#pragma weak dmamap_of_get_next_child_at
#pragma weak dmamap_of_get_next_available_child_at
#pragma weak dmamap_of_get_child_by_name_at
#pragma weak of_get_child_count
#pragma weak of_get_available_child_count
#pragma weak of_device_is_available
#pragma weak dmamap_of_parse_phandle_with_args_at
#pragma weak dmamap_of_count_phandle_with_args_at
#pragma weak dmamap_of_find_node_by_phandle_at
#pragma weak dmamap_fwnode_get_next_child_node_at
#pragma weak dmamap_of_reserved_mem_device_init_by_idx_at
#pragma weak of_reserved_mem_device_release
/* <dmamap/clk.h> */
#pragma weak dmamap_device_add_clock
#pragma weak dmamap_device_clock_state
#pragma weak dmamap_clk_get_at
#pragma weak dmamap_clk_put_at
#pragma weak dmamap_devm_clk_get_at
#pragma weak dmamap_devm_clk_put_at
#pragma weak dmamap_devm_clk_bulk_get_all_at
#pragma weak dmamap_clk_prepare_at
#pragma weak dmamap_clk_unprepare_at
#pragma weak dmamap_clk_enable_at
#pragma weak dmamap_clk_disable_at
#pragma weak dmamap_clk_set_rate_at
#pragma weak clk_get_rate
#pragma weak clk_round_rate
/* <dmamap/workqueue.h> */
#pragma weak dmamap_work_init
#pragma weak dmamap_wq_alloc
#pragma weak dmamap_wq_system
#pragma weak dmamap_wq_alloc_bh
#pragma weak dmamap_wq_system_bh
#pragma weak dmamap_wq_destroy_at
#pragma weak dmamap_queue_work_at
#pragma weak dmamap_mod_delayed_work_at
#pragma weak dmamap_cancel_work_at
#pragma weak dmamap_flush_work_at
#pragma weak dmamap_flush_wq_at
#pragma weak dmamap_work_pending
#pragma weak dmamap_work_busy
/* <dmamap/reset.h> */
#pragma weak dmamap_device_add_reset
#pragma weak dmamap_device_reset_state
#pragma weak dmamap_reset_control_get_at
#pragma weak dmamap_devm_reset_control_get_at
#pragma weak dmamap_devm_reset_control_array_get_at
#pragma weak dmamap_reset_control_put_at
#pragma weak dmamap_reset_control_assert_at
#pragma weak dmamap_reset_control_deassert_at
#pragma weak dmamap_reset_control_reset_at
#pragma weak dmamap_reset_control_rearm_at
#pragma weak dmamap_reset_control_status_at
#pragma weak dmamap_reset_control_acquire_at
#pragma weak dmamap_reset_control_release_at
/* <dmamap/iomem.h> */
#pragma weak dmamap_ioremap_at
#pragma weak dmamap_iounmap_at
#pragma weak dmamap_devm_ioremap_at
#pragma weak dmamap_devm_iounmap_at
#pragma weak dmamap_devm_ioremap_resource_at
/* <dmamap/machine.h> */
#pragma weak dmamap_machine_current
#pragma weak dmamap_machine_set_current
#pragma weak dmamap_machine_get_config
#pragma weak dmamap_fault_inject
#pragma weak dmamap_fault_attempts
#pragma weak dmamap_fault_injected
/* <dmamap/locking.h> */
#pragma weak dmamap_lock_init
#pragma weak dmamap_lock_init_at
#pragma weak dmamap_spin_lock_nested_at
#pragma weak dmamap_mutex_lock_nested_at
#pragma weak dmamap_lock_set_class
#pragma weak dmamap_lock_set_novalidate
#pragma weak dmamap_lockdep_enabled
#pragma weak dmamap_spin_lock_at
#pragma weak dmamap_spin_trylock_at
#pragma weak dmamap_spin_unlock_at
#pragma weak dmamap_mutex_lock_at
#pragma weak dmamap_mutex_trylock_at
#pragma weak dmamap_mutex_unlock_at
#pragma weak dmamap_mutex_destroy_at
#pragma weak dmamap_lock_is_locked
#pragma weak dmamap_lock_assert_at
#pragma weak dmamap_local_irq_save_at
#pragma weak dmamap_local_irq_restore
#pragma weak dmamap_irqs_disabled
#pragma weak dmamap_irqs_assert_at
#pragma weak dmamap_in_atomic
#pragma weak dmamap_in_hardirq
#pragma weak dmamap_local_bh_disable_at
#pragma weak dmamap_local_bh_enable_at
#pragma weak dmamap_in_softirq
#pragma weak dmamap_in_serving_softirq
#pragma weak dmamap_might_sleep_at
#pragma weak dmamap_completion_init
#pragma weak dmamap_completion_reinit
#pragma weak dmamap_complete
#pragma weak dmamap_complete_all
#pragma weak dmamap_completion_wait_at
#pragma weak dmamap_completion_try_wait
#pragma weak dmamap_completion_done
#pragma weak dmamap_waitqueue_init
#pragma weak dmamap_wake_up
#pragma weak dmamap_waitqueue_active
#pragma weak dmamap_waitqueue_ticket
#pragma weak dmamap_wait_deadline
#pragma weak dmamap_wait_left
#pragma weak dmamap_waitqueue_sleep
/* <dmamap/clock.h> */
#pragma weak dmamap_ktime_ns
#pragma weak dmamap_jiffies
#pragma weak msecs_to_jiffies
#pragma weak usecs_to_jiffies
#pragma weak nsecs_to_jiffies
#pragma weak jiffies_to_msecs
#pragma weak jiffies_to_usecs
#pragma weak dmamap_delay_ns
#pragma weak dmamap_sleep_us
#pragma weak dmamap_fsleep
/* <dmamap/page.h> */
#pragma weak alloc_pages
#pragma weak alloc_page
#pragma weak __free_pages
#pragma weak __free_page
#pragma weak __get_free_pages
#pragma weak get_zeroed_page
#pragma weak free_pages
#pragma weak free_page
#pragma weak dmamap_free_pages_at
#pragma weak dmamap_free_pages_addr_at
#pragma weak split_page
#pragma weak get_page
#pragma weak put_page
#pragma weak page_count
#pragma weak page_to_pfn
#pragma weak virt_addr_valid
#pragma weak virt_to_page
#pragma weak dmamap_pfn_to_page
#pragma weak dmamap_phys_to_page
#pragma weak dmamap_phys_to_virt
#pragma weak dmamap_pfn_valid
#pragma weak pfn_to_page
#pragma weak phys_to_page
#pragma weak phys_to_virt
#pragma weak pfn_valid
/* <dmamap/cache.h> */
#pragma weak dmamap_cache_set_ops
#pragma weak dmamap_cache_get_ops
#pragma weak dmac_map_area
#pragma weak dmac_unmap_area
#pragma weak dmac_flush_range
#pragma weak outer_clean_range
#pragma weak outer_inv_range
#pragma weak outer_flush_range
#pragma weak dmamap_cache_clean
#pragma weak dmamap_cache_inv
#pragma weak dmamap_cache_flush
#pragma weak dmamap_cache_line_state
#pragma weak dmamap_cache_speculate
#pragma weak dmamap_cache_set_prefetch_rate
#pragma weak dmamap_cache_set_line_by_line
#pragma weak dmamap_cache_get_stats
#pragma weak dmamap_cache_reset_stats
/* <dmamap/slab.h> */
#pragma weak dmamap_kmalloc
#pragma weak dmamap_kmalloc_array
#pragma weak dmamap_krealloc
#pragma weak dmamap_kfree
#pragma weak dmamap_kfree_sensitive
#pragma weak dmamap_kmemdup
#pragma weak dmamap_kmemdup_nul
#pragma weak dmamap_kvasprintf
#pragma weak dmamap_kasprintf
#pragma weak ksize
#pragma weak kmalloc_size_roundup
#pragma weak dmamap_kmalloc_stats
#pragma weak dmamap_kvmalloc_at
#pragma weak dmamap_kvmalloc_array_at
#pragma weak dmamap_kvfree_at
#pragma weak dmamap_kvfree_sensitive_at
/* <dmamap/mm.h> */
#pragma weak dmamap_vma_create
#pragma weak dmamap_vma_destroy
#pragma weak remap_pfn_range
#pragma weak vm_insert_page
#pragma weak dmamap_vma_pte
#pragma weak dmamap_consistent_pte
#pragma weak dmamap_consistent_contains
#pragma weak dmamap_consistent_stats
/* <dmamap/vmalloc.h> */
#pragma weak dmamap_vmalloc_at
#pragma weak dmamap_vmalloc_array_at
#pragma weak dmamap_vfree_at
#pragma weak dmamap_vfree_atomic_at
#pragma weak dmamap_vmap_at
#pragma weak dmamap_vunmap_at
#pragma weak dmamap_vmalloc_to_page_at
#pragma weak is_vmalloc_addr
#pragma weak dmamap_vmalloc_stats
/* <dmamap/device.h> */
#pragma weak dmamap_device_init
#pragma weak dmamap_device_release
#pragma weak dev_name
#pragma weak dmamap_dev_machine
#pragma weak dmamap_dev_read
#pragma weak dmamap_dev_write
#pragma weak dmamap_dev_fill
#pragma weak dmamap_dev_read_loc
#pragma weak dmamap_dev_write_loc
#pragma weak dmamap_dev_fill_loc
/* <dmamap/iova.h> */
#pragma weak dmamap_iova_create
#pragma weak dmamap_iova_destroy
#pragma weak dmamap_iova_alloc
#pragma weak dmamap_iova_free
#pragma weak dmamap_iova_set_max_align
#pragma weak dmamap_iova_set_cache
#pragma weak dmamap_iova_stats
#pragma weak dmamap_iova_is_allocated
/* <dmamap/scatterlist.h> */
#pragma weak sg_init_table
#pragma weak sg_init_one
#pragma weak sg_set_buf
#pragma weak dmamap_sg_set_buf
#pragma weak dmamap_sg_init_one
#pragma weak sg_chain
#pragma weak sg_nents
#pragma weak sg_nents_for_len
#pragma weak sg_last
#pragma weak sg_virt
#pragma weak sg_phys
#pragma weak sg_alloc_table
#pragma weak sg_free_table
#pragma weak sg_alloc_table_from_pages
#pragma weak sg_copy_from_buffer
#pragma weak sg_copy_to_buffer
#pragma weak sg_copy_buffer
#pragma weak sg_pcopy_from_buffer
#pragma weak sg_pcopy_to_buffer
#pragma weak sg_zero_buffer
#pragma weak sg_miter_start
#pragma weak sg_miter_next
#pragma weak sg_miter_skip
#pragma weak sg_miter_stop
#pragma weak __sg_page_iter_start
#pragma weak __sg_page_iter_next
#pragma weak __sg_page_iter_dma_next
#pragma weak sg_page_iter_page
#pragma weak sgl_alloc_order
#pragma weak sgl_alloc
#pragma weak sgl_free_n_order
#pragma weak sgl_free_order
#pragma weak sgl_free
#pragma weak sg_alloc_append_table_from_pages
#pragma weak sg_free_append_table
/* <dmamap/dma-mapping.h> */
#pragma weak get_dma_ops
#pragma weak set_dma_ops
#pragma weak dmamap_map_single_attrs
#pragma weak dmamap_unmap_single_attrs
#pragma weak dmamap_map_page_attrs
#pragma weak dmamap_unmap_page_attrs
#pragma weak dmamap_map_sg_attrs
#pragma weak dmamap_unmap_sg_attrs
#pragma weak dmamap_sync_single_for_cpu
#pragma weak dmamap_sync_single_for_device
#pragma weak dmamap_sync_sg_for_cpu
#pragma weak dmamap_sync_sg_for_device
#pragma weak dmamap_alloc_attrs
#pragma weak dmamap_free_attrs
#pragma weak dmamap_mmap_attrs
#pragma weak dmamap_get_sgtable_attrs
#pragma weak dmamap_mapping_error
#pragma weak dma_supported
#pragma weak dma_set_mask
#pragma weak dma_set_coherent_mask
#pragma weak dma_set_mask_and_coherent
#pragma weak dma_get_mask
#pragma weak dma_get_max_seg_size
#pragma weak dma_set_max_seg_size
#pragma weak dma_get_seg_boundary
#pragma weak dma_set_seg_boundary
#pragma weak dma_declare_coherent_memory
#pragma weak dma_release_declared_memory
#pragma weak dmamap_contiguous_reserve
#pragma weak dmamap_coherent_stats
/* <dmamap/dma-common.h>, <dmamap/dma-linux.h> */
#pragma weak dma_coerce_mask_and_coherent
#pragma weak dma_max_mapping_size
#pragma weak dma_opt_mapping_size
#pragma weak dma_get_cache_alignment
#pragma weak dma_get_required_mask
#pragma weak dma_need_sync
#pragma weak dma_need_unmap
#pragma weak dma_can_mmap
#pragma weak dma_set_min_align_mask
#pragma weak dma_get_min_align_mask
#pragma weak dma_addressing_limited
#pragma weak dmamap_linux_mapping_error
#pragma weak dmamap_linux_map_page
#pragma weak dmamap_linux_unmap_page
#pragma weak dmamap_linux_map_single
#pragma weak dmamap_linux_unmap_single
#pragma weak dmamap_linux_map_sg
#pragma weak dmamap_linux_unmap_sg
#pragma weak dmamap_linux_map_sgtable
#pragma weak dmamap_linux_unmap_sgtable
#pragma weak dmamap_linux_sync_sgtable
#pragma weak dmamap_linux_alloc
#pragma weak dmamap_linux_free
#pragma weak dmamap_linux_mmap
#pragma weak dmamap_linux_get_sgtable
#pragma weak dmamap_linux_alloc_noncoherent
#pragma weak dmamap_linux_free_noncoherent
#pragma weak dmamap_linux_alloc_pages
#pragma weak dmamap_linux_free_pages
#pragma weak dmamap_linux_alloc_noncontiguous
#pragma weak dmamap_linux_free_noncontiguous
#pragma weak dmamap_linux_vmap_noncontiguous
#pragma weak dmamap_linux_vunmap_noncontiguous
#pragma weak dmamap_linux_mmap_pages
#pragma weak dmamap_linux_mmap_noncontiguous
#pragma weak dmamap_linux_map_resource
#pragma weak dmamap_linux_unmap_resource
#pragma weak dmamap_linux_dmam_alloc
#pragma weak dmamap_linux_iova_try_alloc
#pragma weak dmamap_linux_iova_link
#pragma weak dmamap_linux_iova_sync
#pragma weak dmamap_linux_iova_unlink
#pragma weak dmamap_linux_iova_destroy
#pragma weak dmamap_linux_iova_free
/* <dmamap/dmapool.h> */
#pragma weak dma_pool_create
#pragma weak dma_pool_destroy
#pragma weak dma_pool_alloc
#pragma weak dma_pool_zalloc
#pragma weak dma_pool_free
#pragma weak dmamap_dma_pool_stats
#pragma weak dmamap_dma_pool_create
#pragma weak dmamap_dma_pool_alloc
#pragma weak dmamap_dma_pool_free
#pragma weak dmamap_dma_pool_destroy
#pragma weak dmamap_report_kind_category
/* <dmamap/devres.h> */
#pragma weak dmamap_devm_kmalloc
#pragma weak dmamap_devm_kmalloc_array
#pragma weak dmamap_devm_kfree
#pragma weak dmamap_devm_kmemdup
#pragma weak dmamap_devm_kmemdup_array
#pragma weak dmamap_devm_krealloc
#pragma weak dmamap_devm_krealloc_array
#pragma weak dmamap_devm_kstrdup
#pragma weak dmamap_devm_kvasprintf
#pragma weak dmamap_devm_kasprintf
#pragma weak dmamap_dmam_alloc_attrs
#pragma weak dmamap_dmam_free_coherent
#pragma weak dmamap_dmam_pool_create
#pragma weak dmamap_dmam_pool_destroy
#pragma weak dmamap_devm_add_action
#pragma weak devm_remove_action
#pragma weak devm_release_action
#pragma weak dmamap_devres_count
#pragma weak dmamap_device_unbind
/* <dmamap/testing.h> */
#pragma weak dmamap_test_demanding_config
#pragma weak dmamap_test_init
#pragma weak dmamap_test_init_on
#pragma weak dmamap_test_fini
#pragma weak dmamap_test_reset_reports
#pragma weak dmamap_test_find_report
#pragma weak dmamap_test_no_reports
#pragma weak dmamap_test_no_outstanding
#pragma weak dmamap_test_device_sees_loc
#pragma weak dmamap_test_fault_sweep
/* <dmamap/dmabounce.h> */
#pragma weak dmabounce_register_dev
#pragma weak dmabounce_unregister_dev
#pragma weak dmabounce_get_stats
/* <dmamap/iommu.h> */
#pragma weak iommu_domain_alloc
#pragma weak iommu_domain_free
#pragma weak iommu_attach_device
#pragma weak iommu_detach_device
#pragma weak iommu_map
#pragma weak iommu_unmap
#pragma weak iommu_unmap_fast
#pragma weak dmamap_iommu_unmap_fast_loc
#pragma weak iommu_iotlb_sync
#pragma weak iommu_flush_iotlb_all
#pragma weak iommu_iova_to_phys
#pragma weak iommu_set_fault_handler
#pragma weak iommu_get_domain_for_dev
#pragma weak dmamap_iommu_stats
/* <dmamap/dma-iommu.h> */
#pragma weak arm_iommu_create_mapping
#pragma weak arm_iommu_release_mapping
#pragma weak arm_iommu_attach_device
#pragma weak arm_iommu_detach_device
/* <dmamap/debug.h> */
#pragma weak dmamap_checker_enable
#pragma weak dmamap_checker_enabled
#pragma weak dmamap_checker_poison
#pragma weak dmamap_checker_stats
/* <dmamap/check.h> */
#pragma weak dmamap_machine_check
#pragma weak dmamap_check_area_name
#pragma weak dmamap_fault_sweep
#pragma weak dmamap_default_cache_ops
#pragma weak arm_dma_ops

struct export {
	const char *name;
	void (*fn)(void);
};

#define F(name) { #name, (void (*)(void))(name) }

static const struct export functions[] = {
	/* <dmamap/log.h> */
	F(dmamap_set_log_handler),
	F(dmamap_set_log_level),
	F(dmamap_set_strict),
	F(dmamap_report_count),
	F(dmamap_report_count_kind),
	F(dmamap_report_kind_name),
	F(dmamap_dev_printk),
	F(dmamap_printk),
	F(dmamap_warn_at),
	F(dmamap_bug_at),
	F(dmamap_refcount_report_at),
	F(vscnprintf),
	F(scnprintf),
	/* <dmamap/irq.h> */
	F(dmamap_request_irq_at),
	F(dmamap_request_threaded_irq_at),
	F(dmamap_free_irq_at),
	F(dmamap_devm_request_irq_at),
	F(dmamap_devm_request_threaded_irq_at),
	F(dmamap_devm_free_irq_at),
	F(dmamap_irq_disable_at),
	F(dmamap_irq_enable_at),
	F(dmamap_irq_synchronize_at),
	F(dmamap_irq_raise),
	F(dmamap_irq_handlers),
	/* <dmamap/tasklet.h> */
	F(dmamap_tasklet_init_at),
	F(dmamap_tasklet_schedule_at),
	F(dmamap_tasklet_disable_at),
	F(dmamap_tasklet_enable_at),
	F(dmamap_tasklet_kill_at),
	F(dmamap_tasklet_unlock_wait_at),
	F(dmamap_tasklet_trylock),
	F(dmamap_tasklet_unlock),
	F(dmamap_tasklet_scheduled),
	/* <dmamap/platform.h> */
	F(dmamap_platform_device_create),
	F(dmamap_platform_device_create_res),
	F(platform_get_resource),
	F(platform_get_resource_byname),
	F(platform_get_irq_optional),
	F(platform_get_irq),
	F(platform_irq_count),
	F(dmamap_platform_bind),
	F(dmamap_platform_unbind),
	F(dmamap_platform_device_destroy),
	F(dmamap_devm_platform_get_and_ioremap_resource_at),
	F(dmamap_devm_platform_ioremap_resource_byname_at),
	F(dmamap_platform_regs),
	F(dmamap_platform_regs_byname),
	F(platform_device_add_data),
	/* <dmamap/pm.h> */
	F(dmamap_pm_runtime_idle_at),
	F(dmamap_pm_runtime_suspend_at),
	F(dmamap_pm_runtime_resume_at),
	F(dmamap_pm_runtime_resume_and_get_at),
	F(dmamap_pm_runtime_get_noresume_at),
	F(dmamap_pm_runtime_put_noidle_at),
	F(dmamap_pm_runtime_get_if_active_at),
	F(dmamap_pm_runtime_enable_at),
	F(dmamap_pm_runtime_disable_at),
	F(dmamap_devm_pm_runtime_enable_at),
	F(dmamap_pm_runtime_set_status_at),
	F(dmamap_pm_runtime_mark_last_busy_at),
	F(dmamap_pm_runtime_use_autosuspend_at),
	F(dmamap_pm_runtime_set_autosuspend_delay_at),
	F(dmamap_pm_runtime_allow_at),
	F(dmamap_pm_runtime_no_callbacks_at),
	F(dmamap_pm_runtime_irq_safe_at),
	F(pm_runtime_active),
	F(pm_runtime_suspended),
	F(pm_runtime_status_suspended),
	F(pm_runtime_enabled),
	F(pm_runtime_is_irq_safe),
	F(pm_runtime_autosuspend_expiration),
	F(pm_runtime_force_suspend),
	F(pm_runtime_force_resume),
	F(dmamap_pm_runtime_info),
	F(dmamap_pm_runtime_run_timer),
	/* <dmamap/of.h> */
	F(dmamap_device_set_of_node),
	F(of_find_property),
	F(of_get_property),
	F(of_property_count_elems_of_size),
	F(of_property_read_variable_u8_array),
	F(of_property_read_variable_u16_array),
	F(of_property_read_variable_u32_array),
	F(of_property_read_variable_u64_array),
	F(of_property_read_u32_index),
	F(of_property_read_string_helper),
	F(of_property_read_string),
	F(of_property_match_string),
	F(of_device_is_compatible),
	F(of_node_name_eq),
	F(of_match_node),
	F(of_match_device),
	F(of_device_get_match_data),
	F(device_get_match_data),
	F(fwnode_property_present),
	F(fwnode_property_read_u32_array),
	F(fwnode_property_read_u8_array),
	F(fwnode_property_read_u16_array),
	F(fwnode_property_read_u64_array),
	F(fwnode_property_read_string_array),
	F(fwnode_property_match_string),
	F(dmamap_of_node_add_child),
	F(dmamap_of_node_create),
	F(dmamap_of_node_destroy),
	F(dmamap_of_node_get_at),
	F(dmamap_of_node_put_at),
	F(dmamap_of_get_parent_at),
	F(dmamap_of_get_next_child_at),
	F(dmamap_of_get_next_available_child_at),
	F(dmamap_of_get_child_by_name_at),
	F(of_get_child_count),
	F(of_get_available_child_count),
	F(of_device_is_available),
	F(dmamap_of_parse_phandle_with_args_at),
	F(dmamap_of_count_phandle_with_args_at),
	F(dmamap_of_find_node_by_phandle_at),
	F(dmamap_fwnode_get_next_child_node_at),
	F(dmamap_of_reserved_mem_device_init_by_idx_at),
	F(of_reserved_mem_device_release),
	/* <dmamap/clk.h> */
	F(dmamap_firmware_add),
	F(dmamap_firmware_remove),
	F(dmamap_firmware_loaded),
	F(dmamap_request_firmware_at),
	F(dmamap_request_firmware_nowait_at),
	F(dmamap_release_firmware_at),
	F(dmamap_device_add_clock),
	F(dmamap_device_clock_state),
	F(dmamap_clk_get_at),
	F(dmamap_clk_put_at),
	F(dmamap_devm_clk_get_at),
	F(dmamap_devm_clk_put_at),
	F(dmamap_devm_clk_bulk_get_all_at),
	F(dmamap_clk_prepare_at),
	F(dmamap_clk_unprepare_at),
	F(dmamap_clk_enable_at),
	F(dmamap_clk_disable_at),
	F(dmamap_clk_set_rate_at),
	F(clk_get_rate),
	F(clk_round_rate),
	/* <dmamap/workqueue.h> */
	F(dmamap_work_init),
	F(dmamap_wq_alloc),
	F(dmamap_wq_system),
	F(dmamap_wq_alloc_bh),
	F(dmamap_wq_system_bh),
	F(dmamap_wq_destroy_at),
	F(dmamap_queue_work_at),
	F(dmamap_mod_delayed_work_at),
	F(dmamap_cancel_work_at),
	F(dmamap_flush_work_at),
	F(dmamap_flush_wq_at),
	F(dmamap_work_pending),
	F(dmamap_work_busy),
	/* <dmamap/reset.h> */
	F(dmamap_device_add_reset),
	F(dmamap_device_reset_state),
	F(dmamap_reset_control_get_at),
	F(dmamap_devm_reset_control_get_at),
	F(dmamap_devm_reset_control_array_get_at),
	F(dmamap_reset_control_put_at),
	F(dmamap_reset_control_assert_at),
	F(dmamap_reset_control_deassert_at),
	F(dmamap_reset_control_reset_at),
	F(dmamap_reset_control_rearm_at),
	F(dmamap_reset_control_status_at),
	F(dmamap_reset_control_acquire_at),
	F(dmamap_reset_control_release_at),
	/* <dmamap/iomem.h> */
	F(dmamap_ioremap_at),
	F(dmamap_iounmap_at),
	F(dmamap_devm_ioremap_at),
	F(dmamap_devm_iounmap_at),
	F(dmamap_devm_ioremap_resource_at),
	/* <dmamap/machine.h> */
	F(dmamap_machine_config_init),
	F(dmamap_machine_create),
	F(dmamap_machine_destroy),
	F(dmamap_machine_current),
	F(dmamap_machine_set_current),
	F(dmamap_machine_get_config),
	F(dmamap_machine_of),
	F(dmamap_fault_inject),
	F(dmamap_fault_attempts),
	F(dmamap_fault_injected),
	/* <dmamap/locking.h> */
	F(dmamap_lock_init),
	F(dmamap_lock_init_at),
	F(dmamap_spin_lock_at),
	F(dmamap_spin_lock_nested_at),
	F(dmamap_spin_trylock_at),
	F(dmamap_spin_unlock_at),
	F(dmamap_mutex_lock_at),
	F(dmamap_mutex_lock_nested_at),
	F(dmamap_mutex_trylock_at),
	F(dmamap_mutex_unlock_at),
	F(dmamap_mutex_destroy_at),
	F(dmamap_lock_is_locked),
	F(dmamap_lock_set_class),
	F(dmamap_lock_set_novalidate),
	F(dmamap_lockdep_enabled),
	F(dmamap_lock_assert_at),
	F(dmamap_local_irq_save_at),
	F(dmamap_local_irq_restore),
	F(dmamap_irqs_disabled),
	F(dmamap_irqs_assert_at),
	F(dmamap_in_atomic),
	F(dmamap_in_hardirq),
	F(dmamap_local_bh_disable_at),
	F(dmamap_local_bh_enable_at),
	F(dmamap_in_softirq),
	F(dmamap_in_serving_softirq),
	F(dmamap_might_sleep_at),
	F(dmamap_completion_init),
	F(dmamap_completion_reinit),
	F(dmamap_complete),
	F(dmamap_complete_all),
	F(dmamap_completion_wait_at),
	F(dmamap_completion_try_wait),
	F(dmamap_completion_done),
	F(dmamap_waitqueue_init),
	F(dmamap_wake_up),
	F(dmamap_waitqueue_active),
	F(dmamap_waitqueue_ticket),
	F(dmamap_wait_deadline),
	F(dmamap_wait_left),
	F(dmamap_waitqueue_sleep),
	/* <dmamap/clock.h> */
	F(dmamap_ktime_ns),
	F(dmamap_jiffies),
	F(msecs_to_jiffies),
	F(usecs_to_jiffies),
	F(nsecs_to_jiffies),
	F(jiffies_to_msecs),
	F(jiffies_to_usecs),
	F(dmamap_delay_ns),
	F(dmamap_sleep_us),
	F(dmamap_fsleep),
	/* <dmamap/page.h> */
	F(dmamap_alloc_pages),
	F(dmamap_free_pages),
	F(alloc_pages),
	F(alloc_page),
	F(__free_pages),
	F(__free_page),
	F(__get_free_pages),
	F(get_zeroed_page),
	F(free_pages),
	F(free_page),
	F(dmamap_free_pages_at),
	F(dmamap_free_pages_addr_at),
	F(split_page),
	F(get_page),
	F(put_page),
	F(page_count),
	F(page_address),
	F(page_to_pfn),
	F(page_to_phys),
	F(virt_addr_valid),
	F(virt_to_phys),
	F(virt_to_page),
	F(dmamap_pfn_to_page),
	F(dmamap_phys_to_page),
	F(dmamap_phys_to_virt),
	F(dmamap_pfn_valid),
	F(pfn_to_page),
	F(phys_to_page),
	F(phys_to_virt),
	F(pfn_valid),
	F(dmamap_page_stats),
	/* <dmamap/cache.h> */
	F(dmamap_cache_set_ops),
	F(dmamap_cache_get_ops),
	F(dmac_map_area),
	F(dmac_unmap_area),
	F(dmac_flush_range),
	F(outer_clean_range),
	F(outer_inv_range),
	F(outer_flush_range),
	F(dmamap_cache_clean),
	F(dmamap_cache_inv),
	F(dmamap_cache_flush),
	F(dmamap_cache_line_state),
	F(dmamap_cache_speculate),
	F(dmamap_cache_set_prefetch_rate),
	F(dmamap_cache_set_line_by_line),
	F(dmamap_cache_get_stats),
	F(dmamap_cache_reset_stats),
	/* <dmamap/slab.h> */
	F(dmamap_kmalloc),
	F(dmamap_kmalloc_array),
	F(dmamap_krealloc),
	F(dmamap_kfree),
	F(dmamap_kfree_sensitive),
	F(dmamap_kmemdup),
	F(dmamap_kmemdup_nul),
	F(dmamap_kvasprintf),
	F(dmamap_kasprintf),
	F(ksize),
	F(kmalloc_size_roundup),
	F(dmamap_kmalloc_stats),
	F(dmamap_kvmalloc_at),
	F(dmamap_kvmalloc_array_at),
	F(dmamap_kvfree_at),
	F(dmamap_kvfree_sensitive_at),
	/* <dmamap/mm.h> */
	F(dmamap_vma_create),
	F(dmamap_vma_destroy),
	F(remap_pfn_range),
	F(vm_insert_page),
	F(dmamap_vma_pte),
	F(dmamap_consistent_pte),
	F(dmamap_consistent_contains),
	F(dmamap_consistent_stats),
	/* <dmamap/vmalloc.h> */
	F(dmamap_vmalloc_at),
	F(dmamap_vmalloc_array_at),
	F(dmamap_vfree_at),
	F(dmamap_vfree_atomic_at),
	F(dmamap_vmap_at),
	F(dmamap_vunmap_at),
	F(dmamap_vmalloc_to_page_at),
	F(is_vmalloc_addr),
	F(dmamap_vmalloc_stats),
	/* <dmamap/device.h> */
	F(dmamap_device_init),
	F(dmamap_device_release),
	F(dev_name),
	F(dmamap_dev_machine),
	F(dmamap_dev_read),
	F(dmamap_dev_write),
	F(dmamap_dev_fill),
	F(dmamap_dev_read_loc),
	F(dmamap_dev_write_loc),
	F(dmamap_dev_fill_loc),
	/* <dmamap/iova.h> */
	F(dmamap_iova_create),
	F(dmamap_iova_destroy),
	F(dmamap_iova_alloc),
	F(dmamap_iova_free),
	F(dmamap_iova_set_max_align),
	F(dmamap_iova_set_cache),
	F(dmamap_iova_stats),
	F(dmamap_iova_is_allocated),
	/* <dmamap/scatterlist.h> */
	F(sg_init_table),
	F(sg_init_one),
	F(sg_set_buf),
	F(dmamap_sg_set_buf),
	F(dmamap_sg_init_one),
	F(sg_chain),
	F(sg_nents),
	F(sg_nents_for_len),
	F(sg_last),
	F(sg_virt),
	F(sg_phys),
	F(sg_alloc_table),
	F(sg_free_table),
	F(sg_alloc_table_from_pages),
	F(sg_copy_from_buffer),
	F(sg_copy_to_buffer),
	F(sg_copy_buffer),
	F(sg_pcopy_from_buffer),
	F(sg_pcopy_to_buffer),
	F(sg_zero_buffer),
	F(sg_miter_start),
	F(sg_miter_next),
	F(sg_miter_skip),
	F(sg_miter_stop),
	F(__sg_page_iter_start),
	F(__sg_page_iter_next),
	F(__sg_page_iter_dma_next),
	F(sg_page_iter_page),
	F(sgl_alloc_order),
	F(sgl_alloc),
	F(sgl_free_n_order),
	F(sgl_free_order),
	F(sgl_free),
	F(sg_alloc_append_table_from_pages),
	F(sg_free_append_table),
	/* <dmamap/dma-mapping.h> */
	F(get_dma_ops),
	F(set_dma_ops),
	F(dmamap_map_single_attrs),
	F(dmamap_unmap_single_attrs),
	F(dmamap_map_page_attrs),
	F(dmamap_unmap_page_attrs),
	F(dmamap_map_sg_attrs),
	F(dmamap_unmap_sg_attrs),
	F(dmamap_sync_single_for_cpu),
	F(dmamap_sync_single_for_device),
	F(dmamap_sync_sg_for_cpu),
	F(dmamap_sync_sg_for_device),
	F(dmamap_alloc_attrs),
	F(dmamap_free_attrs),
	F(dmamap_mmap_attrs),
	F(dmamap_get_sgtable_attrs),
	F(dmamap_mapping_error),
	F(dma_supported),
	F(dma_set_mask),
	F(dma_set_coherent_mask),
	F(dma_set_mask_and_coherent),
	F(dma_get_mask),
	F(dma_get_max_seg_size),
	F(dma_set_max_seg_size),
	F(dma_get_seg_boundary),
	F(dma_set_seg_boundary),
	F(dma_declare_coherent_memory),
	F(dma_release_declared_memory),
	F(dmamap_contiguous_reserve),
	F(dmamap_coherent_stats),
	/* <dmamap/dma-common.h>, <dmamap/dma-linux.h> */
	F(dma_coerce_mask_and_coherent),
	F(dma_max_mapping_size),
	F(dma_opt_mapping_size),
	F(dma_get_cache_alignment),
	F(dma_get_required_mask),
	F(dma_need_sync),
	F(dma_need_unmap),
	F(dma_can_mmap),
	F(dma_set_min_align_mask),
	F(dma_get_min_align_mask),
	F(dma_addressing_limited),
	F(dmamap_linux_mapping_error),
	F(dmamap_linux_map_page),
	F(dmamap_linux_unmap_page),
	F(dmamap_linux_map_single),
	F(dmamap_linux_unmap_single),
	F(dmamap_linux_map_sg),
	F(dmamap_linux_unmap_sg),
	F(dmamap_linux_map_sgtable),
	F(dmamap_linux_unmap_sgtable),
	F(dmamap_linux_sync_sgtable),
	F(dmamap_linux_alloc),
	F(dmamap_linux_free),
	F(dmamap_linux_mmap),
	F(dmamap_linux_get_sgtable),
	F(dmamap_linux_alloc_noncoherent),
	F(dmamap_linux_free_noncoherent),
	F(dmamap_linux_alloc_pages),
	F(dmamap_linux_free_pages),
	F(dmamap_linux_alloc_noncontiguous),
	F(dmamap_linux_free_noncontiguous),
	F(dmamap_linux_vmap_noncontiguous),
	F(dmamap_linux_vunmap_noncontiguous),
	F(dmamap_linux_mmap_pages),
	F(dmamap_linux_mmap_noncontiguous),
	F(dmamap_linux_map_resource),
	F(dmamap_linux_unmap_resource),
	F(dmamap_linux_dmam_alloc),
	F(dmamap_linux_iova_try_alloc),
	F(dmamap_linux_iova_link),
	F(dmamap_linux_iova_sync),
	F(dmamap_linux_iova_unlink),
	F(dmamap_linux_iova_destroy),
	F(dmamap_linux_iova_free),
	/* <dmamap/dmapool.h> */
	F(dma_pool_create),
	F(dma_pool_destroy),
	F(dma_pool_alloc),
	F(dma_pool_zalloc),
	F(dma_pool_free),
	F(dmamap_dma_pool_stats),
	F(dmamap_dma_pool_create),
	F(dmamap_dma_pool_alloc),
	F(dmamap_dma_pool_free),
	F(dmamap_dma_pool_destroy),
	F(dmamap_report_kind_category),
	/* <dmamap/devres.h> */
	F(dmamap_devm_kmalloc),
	F(dmamap_devm_kmalloc_array),
	F(dmamap_devm_kfree),
	F(dmamap_devm_kmemdup),
	F(dmamap_devm_kmemdup_array),
	F(dmamap_devm_krealloc),
	F(dmamap_devm_krealloc_array),
	F(dmamap_devm_kstrdup),
	F(dmamap_devm_kvasprintf),
	F(dmamap_devm_kasprintf),
	F(dmamap_dmam_alloc_attrs),
	F(dmamap_dmam_free_coherent),
	F(dmamap_dmam_pool_create),
	F(dmamap_dmam_pool_destroy),
	F(dmamap_devm_add_action),
	F(devm_remove_action),
	F(devm_release_action),
	F(dmamap_devres_count),
	F(dmamap_device_unbind),
	/* <dmamap/testing.h> */
	F(dmamap_test_demanding_config),
	F(dmamap_test_init),
	F(dmamap_test_init_on),
	F(dmamap_test_fini),
	F(dmamap_test_reset_reports),
	F(dmamap_test_find_report),
	F(dmamap_test_no_reports),
	F(dmamap_test_no_outstanding),
	F(dmamap_test_device_sees_loc),
	F(dmamap_test_fault_sweep),
	/* <dmamap/dmabounce.h> */
	F(dmabounce_register_dev),
	F(dmabounce_unregister_dev),
	F(dmabounce_get_stats),
	/* <dmamap/iommu.h> */
	F(iommu_domain_alloc),
	F(iommu_domain_free),
	F(iommu_attach_device),
	F(iommu_detach_device),
	F(iommu_map),
	F(iommu_unmap),
	F(iommu_unmap_fast),
	F(dmamap_iommu_unmap_fast_loc),
	F(iommu_iotlb_sync),
	F(iommu_flush_iotlb_all),
	F(iommu_iova_to_phys),
	F(iommu_set_fault_handler),
	F(iommu_get_domain_for_dev),
	F(dmamap_iommu_stats),
	/* <dmamap/dma-iommu.h> */
	F(arm_iommu_create_mapping),
	F(arm_iommu_release_mapping),
	F(arm_iommu_attach_device),
	F(arm_iommu_detach_device),
	/* <dmamap/debug.h> */
	F(dmamap_checker_enable),
	F(dmamap_checker_enabled),
	F(dmamap_checker_poison),
	F(dmamap_checker_stats),
	/* <dmamap/check.h> */
	F(dmamap_machine_check),
	F(dmamap_check_area_name),
	F(dmamap_fault_sweep),
};

/* Data the headers declare DMAMAP_API extern. */
static const struct {
	const char *name;
	const void *addr;
} data[] = {
	{ "dmamap_default_cache_ops", &dmamap_default_cache_ops },
	{ "arm_dma_ops", &arm_dma_ops },
};

/* The static inline helpers of the headers compile and link against the shared library's declarations too. */
static const struct export inlines[] = {
	F(get_order),
	F(valid_dma_direction),
	F(gfpflags_allow_blocking),
	F(ERR_PTR),
	F(PTR_ERR),
	F(IS_ERR),
	F(IS_ERR_OR_NULL),
	F(PageFlag),
	F(dev_set_drvdata),
	F(dev_get_drvdata),
	F(kmalloc),
	F(kzalloc),
	F(kmalloc_array),
	F(kcalloc),
	F(krealloc),
	F(kfree),
	F(kfree_sensitive),
	F(kmemdup),
	F(devm_kmalloc),
	F(devm_kzalloc),
	F(devm_kmalloc_array),
	F(devm_kcalloc),
	F(devm_kfree),
	F(dmam_alloc_coherent),
	F(dmam_free_coherent),
	F(dmam_pool_create),
	F(dmam_pool_destroy),
	F(devm_add_action),
	F(devm_add_action_or_reset),
	F(dmamap_test_device_sees),
};

static void *library(void)
{
	void *h = dlopen("libdmamap.so.0", RTLD_NOW | RTLD_NOLOAD);

	if (!h) {
		/* find it by one of its own symbols */
		Dl_info info;

		assert_true(dladdr((void *)(uintptr_t)&dmamap_machine_create, &info) != 0);
		h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	}
	assert_non_null(h);
	return h;
}

static void test_every_function_is_exported(void **state)
{
	void *lib = library();
	unsigned missing = 0;
	(void)state;

	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		if (!functions[i].fn) {
			print_error("%s is declared in a public header but does not link from libdmamap.so\n",
				    functions[i].name);
			missing++;
			continue;
		}
		if (dlsym(lib, functions[i].name) == NULL) {
			print_error("%s is declared in a public header but is not a symbol of libdmamap.so\n",
				    functions[i].name);
			missing++;
		}
		/* no two entries alike */
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(functions[i].name, functions[j].name);
			assert_true(!functions[i].fn || functions[i].fn != functions[j].fn);
		}
	}
	for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
		if (!data[i].addr || !dlsym(lib, data[i].name)) {
			print_error("%s is declared in a public header but not exported by libdmamap.so\n", data[i].name);
			missing++;
		}
	}
	for (size_t i = 0; i < sizeof(inlines) / sizeof(inlines[0]); i++)
		assert_non_null(inlines[i].fn);
	dlclose(lib);
	if (missing)
		fail_msg("%u public declarations missing from libdmamap.so", missing);
}

/* What the library keeps hidden stays hidden: internal functions are not exported. */
static void test_internals_are_hidden(void **state)
{
	static const char *const internal[] = {
		"dmamap_report", "dmamap_logv", "dmamap_vmregion_alloc", "dm_cpu_store", "dmamap_should_fail",
		"dmamap_page_alloc_init", "dmamap_registry_lookup", "dmamap_zalloc",
	};
	void *lib = library();
	(void)state;

	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		if (dlsym(lib, internal[i]))
			fail_msg("internal function %s is exported", internal[i]);
	dlclose(lib);
}

static void test_real_call_sequence(void **state)
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *m;
	struct dmamap_page_stats st0, st;
	struct page *p;
	unsigned char *va;
	(void)state;

	dmamap_machine_config_init(&cfg);
	cfg.ram_size = 16u << 20;
	cfg.consistent_size = 2u << 20;
	m = dmamap_machine_create(&cfg);
	assert_non_null(m);
	dmamap_page_stats(m, &st0);

	p = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 1);
	assert_non_null(p);
	va = page_address(p);
	assert_non_null(va);
	assert_ptr_equal(dmamap_machine_of(va), m);
	assert_int_equal(virt_to_phys(va), page_to_phys(p));
	assert_int_equal(page_to_phys(p) % (2 * PAGE_SIZE), 0);
	for (size_t i = 0; i < 2 * PAGE_SIZE; i++)
		assert_int_equal(va[i], 0);
	memset(va, 0x5a, 2 * PAGE_SIZE);
	dmamap_page_stats(m, &st);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_DMA] + st.free_pages[DMAMAP_ZONE_NORMAL],
			 st0.free_pages[DMAMAP_ZONE_DMA] + st0.free_pages[DMAMAP_ZONE_NORMAL] - 2);
	dmamap_free_pages(p, 1);
	dmamap_page_stats(m, &st);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_DMA] + st.free_pages[DMAMAP_ZONE_NORMAL],
			 st0.free_pages[DMAMAP_ZONE_DMA] + st0.free_pages[DMAMAP_ZONE_NORMAL]);
	assert_int_equal(st.allocations, 1);
	assert_int_equal(st.frees, 1);
	assert_int_equal(dmamap_report_count(m), 0);
	dmamap_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_function_is_exported),
		cmocka_unit_test(test_internals_are_hidden),
		cmocka_unit_test(test_real_call_sequence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
