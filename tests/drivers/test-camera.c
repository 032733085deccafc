/* SPDX-License-Identifier: MIT */
/*
 * The toy camera driver, unchanged, on a device that addresses RAM directly
 * and on one behind an IOMMU: every frame arrives, the IOMMU device sees each
 * frame as one contiguous segment, nothing leaks, and a wrong direction
 * faults.
 */
#include "../common.h"
#include "internal.h"
#include "toy-camera.h"

static u8 frame_in[CAM_FRAME_BYTES], frame_out[CAM_FRAME_BYTES];

/* The capture hardware: write a frame into the DMA segments of frame @i. */
static int hw_capture(struct device *dev, struct toy_frame *f, unsigned seed)
{
	struct scatterlist *s;
	size_t done = 0;
	unsigned i;

	fill_pattern(frame_in, CAM_FRAME_BYTES, seed);
	for_each_sg(f->sgt.sgl, s, f->sgt.nents, i) {
		int err = dmamap_dev_write(dev, sg_dma_address(s), frame_in + done, sg_dma_len(s));

		if (err)
			return err;
		done += sg_dma_len(s);
	}
	return done == CAM_FRAME_BYTES ? 0 : -EIO;
}

static void with_spec(struct dmamap_machine_config *cfg)
{
	cfg->speculative_prefetch = true;
}

static void run_camera(bool iommu)
{
	struct dmamap_machine *m = test_machine(32, with_spec);
	struct dmamap_page_stats before, after;
	struct dma_iommu_mapping *map = NULL;
	struct device dev = { 0 };
	struct toy_camera cam;

	dmamap_machine_set_current(m);
	dmamap_set_log_level(m, DMAMAP_LOG_WARN);
	assert_int_equal(dmamap_device_init(&dev, m, "toy-cam"), 0);
	if (iommu) {
		map = arm_iommu_create_mapping(m, 0x80000000ULL, 64u << 20, 0);
		assert_false(IS_ERR(map));
		assert_int_equal(arm_iommu_attach_device(&dev, map), 0);
	}
	dmamap_page_stats(m, &before);
	assert_int_equal(toy_camera_open(&cam, &dev, DMA_FROM_DEVICE), 0);
	for (unsigned i = 0; i < CAM_FRAMES; i++) {
		if (iommu) { /* scattered pages, one contiguous range for the device */
			assert_int_equal(cam.frame[i].sgt.nents, 1);
			assert_true(sg_dma_address(cam.frame[i].sgt.sgl) >= 0x80000000ULL);
		} else {
			assert_true(cam.frame[i].sgt.nents > 1);
		}
	}
	for (unsigned round = 0; round < 4; round++) {
		for (unsigned i = 0; i < CAM_FRAMES; i++) {
			assert_int_equal(hw_capture(&dev, &cam.frame[i], round * 10 + i), 0);
			assert_int_equal(toy_camera_read_frame(&cam, i, frame_out), 0);
			assert_int_equal(check_pattern(frame_out, CAM_FRAME_BYTES, round * 10 + i), 0);
		}
	}
	toy_camera_close(&cam);
	dmamap_page_stats(m, &after);
	assert_memory_equal(before.free_pages, after.free_pages, sizeof(before.free_pages));
	if (iommu) {
		struct dmamap_iova_stats is;
		struct dmamap_iommu_stats ms;

		dmamap_iova_stats(map->iova, &is);
		dmamap_iommu_stats(map->domain, &ms);
		assert_int_equal(is.used_granules, 0);
		assert_int_equal(ms.mapped_bytes, 0);
		arm_iommu_detach_device(&dev);
		arm_iommu_release_mapping(map);
	}
	assert_int_equal(dmamap_report_count(m), 0);
	dmamap_device_release(&dev);
	test_machine_destroy(m);
}

static void test_camera_direct(void **state)
{
	(void)state;
	run_camera(false);
}

static void test_camera_behind_iommu(void **state)
{
	(void)state;
	run_camera(true);
}

/* Frames mapped DMA_TO_DEVICE by mistake are read-only to the device: its writes fault. */
static void test_wrong_direction_faults(void **state)
{
	struct dmamap_machine *m = test_machine(32, NULL);
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(m, 0x80000000ULL, 64u << 20, 0);
	struct device dev = { 0 };
	struct toy_camera cam;
	struct capture cap;

	(void)state;
	dmamap_machine_set_current(m);
	capture_start(&cap, m);
	assert_int_equal(dmamap_device_init(&dev, m, "toy-cam"), 0);
	assert_int_equal(arm_iommu_attach_device(&dev, map), 0);
	assert_int_equal(toy_camera_open(&cam, &dev, DMA_TO_DEVICE), 0);
	assert_int_equal(hw_capture(&dev, &cam.frame[0], 1), -EFAULT);
	assert_int_equal(cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);
	assert_true(strstr(cap.last, "toy-cam") || strcmp(cap.last_device, "toy-cam") == 0);
	toy_camera_close(&cam);
	arm_iommu_detach_device(&dev);
	arm_iommu_release_mapping(map);
	dmamap_device_release(&dev);
	capture_stop(m);
	test_machine_destroy(m);
}

/*
 * The fault sweep: open (scattered frames, sg tables, dma_map_sg), one frame
 * captured and read, close -- with each allocation failed in turn.
 */
struct sweep_cam {
	struct device dev;
	struct dma_iommu_mapping *map;
	bool iommu;
};

static int cam_setup(struct dmamap_machine *m, void *arg)
{
	struct sweep_cam *s = arg;
	int err;

	memset(&s->dev, 0, sizeof(s->dev));
	dmamap_set_log_level(m, DMAMAP_LOG_ERR);
	if (dmamap_device_init(&s->dev, m, "toy-cam"))
		return -ENODEV;
	if (!s->iommu)
		return 0;
	s->map = arm_iommu_create_mapping(m, 0x80000000ULL, 16u << 20, 0);
	if (IS_ERR(s->map))
		return (int)PTR_ERR(s->map);
	err = arm_iommu_attach_device(&s->dev, s->map);
	arm_iommu_release_mapping(s->map);
	return err;
}

static int cam_scenario(struct dmamap_machine *m, void *arg)
{
	struct sweep_cam *s = arg;
	struct toy_camera cam;
	int err;

	(void)m;
	err = toy_camera_open(&cam, &s->dev, DMA_FROM_DEVICE);
	if (err)
		return err;
	assert_int_equal(hw_capture(&s->dev, &cam.frame[1], 7), 0);
	err = toy_camera_read_frame(&cam, 1, frame_out);
	if (!err)
		assert_int_equal(check_pattern(frame_out, CAM_FRAME_BYTES, 7), 0);
	toy_camera_close(&cam);
	return err;
}

static void cam_teardown(struct dmamap_machine *m, void *arg, int ret)
{
	struct sweep_cam *s = arg;

	(void)m;
	(void)ret;
	if (s->iommu)
		arm_iommu_detach_device(&s->dev);
	dmamap_device_release(&s->dev);
}

static void sweep_camera(bool iommu)
{
	struct dmamap_machine_config cfg;
	struct sweep_cam s = { .iommu = iommu };
	/* not strict: a spacer page that cannot be had is no loss to the driver */
	struct dmamap_fault_sweep sw = {
		.cfg = &cfg, .setup = cam_setup, .scenario = cam_scenario, .teardown = cam_teardown, .ctx = &s,
		.sites = sweep_sites(),
	};
	struct dmamap_fault_sweep_result r;

	dmamap_machine_config_init(&cfg);
	with_spec(&cfg);
	cfg.ram_size = 16u << 20;
	cfg.consistent_size = 2u << 20;
	assert_sweep_clean(&sw, &r);
	/* a page and a spacer per frame page, for every frame */
	if (site_swept(DMAMAP_FAULT_PAGE_ALLOC))
		assert_int_equal(r.attempts[DMAMAP_FAULT_PAGE_ALLOC],
				 2 * CAM_FRAMES * (PAGE_ALIGN(CAM_FRAME_BYTES) >> PAGE_SHIFT));
	assert_true(r.attempts[DMAMAP_FAULT_HOST_ALLOC] >= CAM_FRAMES); /* the sg tables */
	if (iommu)
		assert_true(r.attempts[DMAMAP_FAULT_IOVA] >= CAM_FRAMES);
	if (site_swept(DMAMAP_FAULT_PAGE_ALLOC)) /* the spacers */
		assert_int_equal(r.recovered_runs, CAM_FRAMES * (PAGE_ALIGN(CAM_FRAME_BYTES) >> PAGE_SHIFT));
}

static void test_fault_sweep_direct(void **state)
{
	(void)state;
	sweep_camera(false);
}

static void test_fault_sweep_behind_iommu(void **state)
{
	(void)state;
	sweep_camera(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_camera_direct),
		cmocka_unit_test(test_camera_behind_iommu),
		cmocka_unit_test(test_wrong_direction_faults),
		cmocka_unit_test(test_fault_sweep_direct),
		cmocka_unit_test(test_fault_sweep_behind_iommu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
