/* SPDX-License-Identifier: MIT */
/*
 * Firmware of <linux/firmware.h> as a driver of Linux 6.x loads it: from
 * the files a test puts in its machine's directory, into a read-only image
 * of its own or into the driver's buffer, in the background through the
 * system workqueue; the failures the kernel's loader has, the misuse
 * reported with nothing changed, and what a driver leaves behind reported
 * at the line of its request.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/firmware.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <pthread.h>
#include <stdio.h>

#include "common.h"

#define FW_NAME "acme/dsp-v2.bin"
#define FW_SIZE 5000 /* a page and a bit: the image's last page is partly used */

static u8 fw_bytes[FW_SIZE];

static void board_firmware(struct dmamap_machine *m)
{
	fill_pattern(fw_bytes, sizeof(fw_bytes), 41);
	assert_int_equal(dmamap_firmware_add(m, FW_NAME, fw_bytes, sizeof(fw_bytes)), 0);
}

/* The permissions of the host mapping that holds @p, as /proc/self/maps says them ("r--p"...). */
static void perms_of(const void *p, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi, a = (unsigned long)p;
	char line[512];

	assert_non_null(f);
	strcpy(perms, "?");
	while (fgets(line, sizeof(line), f)) {
		char pm[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, pm) == 3 && a >= lo && a < hi) {
			memcpy(perms, pm, 5);
			break;
		}
	}
	fclose(f);
}

/* ------------------------------------------------------ a tidy driver */

/* Loads its firmware into a coherent buffer the device runs it from, then lets the image go. */
struct dsp {
	void *code;
	dma_addr_t code_dma;
	size_t code_size;
};

static int dsp_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	const struct firmware *fw;
	struct dsp *dsp = devm_kzalloc(dev, sizeof(*dsp), GFP_KERNEL);
	int ret;

	if (!dsp)
		return -ENOMEM;
	ret = request_firmware(&fw, FW_NAME, dev);
	if (ret)
		return dev_err_probe(dev, ret, "no firmware\n");
	dsp->code = dmam_alloc_coherent(dev, fw->size, &dsp->code_dma, GFP_KERNEL);
	if (!dsp->code) {
		release_firmware(fw);
		return -ENOMEM;
	}
	memcpy(dsp->code, fw->data, fw->size);
	dsp->code_size = fw->size;
	release_firmware(fw);
	platform_set_drvdata(pdev, dsp);
	return 0;
}

static struct platform_driver dsp_driver = {
	.probe = dsp_probe,
	.driver = { .name = "dsp" },
};

static void test_driver_loads_its_firmware(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "dsp", 0);
	u8 seen[FW_SIZE];
	struct dsp *dsp;

	assert_false(IS_ERR(pdev));
	/* no file yet: the probe fails as the kernel's would, the log says why */
	assert_int_equal(dmamap_platform_bind(pdev, &dsp_driver), -ENOENT);
	assert_int_equal(f->c.reports, 0);
	board_firmware(f->m);
	assert_int_equal(dmamap_platform_bind(pdev, &dsp_driver), 0);
	dsp = platform_get_drvdata(pdev);
	assert_int_equal(dsp->code_size, FW_SIZE);
	assert_int_equal(dmamap_dev_read(&pdev->dev, dsp->code_dma, seen, sizeof(seen)), 0);
	assert_memory_equal(seen, fw_bytes, sizeof(seen));
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------- the image itself */

static void test_image_is_a_private_read_only_copy(void **state)
{
	struct current_fx *f = *state;
	const struct firmware *fw, *fw2;
	struct device dev;
	u8 other[16];
	char perms[5];

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	board_firmware(f->m);
	assert_int_equal(request_firmware(&fw, FW_NAME, &dev), 0);
	assert_int_equal(fw->size, FW_SIZE);
	assert_memory_equal(fw->data, fw_bytes, FW_SIZE);
	perms_of(fw->data, perms);
	assert_string_equal(perms, "r--p");
	perms_of(fw->data + FW_SIZE - 1, perms);
	assert_string_equal(perms, "r--p");
	assert_int_equal(dmamap_firmware_loaded(f->m), 1);

	/* the file replaced: the image held stays the old one, a new request gets the new one */
	assert_int_equal(dmamap_firmware_remove(f->m, FW_NAME), 0);
	fill_pattern(other, sizeof(other), 42);
	assert_int_equal(dmamap_firmware_add(f->m, FW_NAME, other, sizeof(other)), 0);
	assert_memory_equal(fw->data, fw_bytes, FW_SIZE);
	assert_int_equal(request_firmware(&fw2, FW_NAME, &dev), 0);
	assert_int_equal(fw2->size, sizeof(other));
	assert_memory_equal(fw2->data, other, sizeof(other));
	assert_true(fw2->data != fw->data);
	assert_int_equal(dmamap_firmware_loaded(f->m), 2);

	release_firmware(fw);
	assert_int_equal(dmamap_firmware_loaded(f->m), 1);
	release_firmware(fw2);
	release_firmware(NULL);
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	dmamap_device_release(&dev);
	assert_int_equal(f->c.reports, 0);
}

/* The kernel's failures: no file, an empty file, a buffer too small; *fw NULL, nothing held. */
static void test_missing_empty_and_too_big(void **state)
{
	struct current_fx *f = *state;
	const struct firmware *fw = (const void *)&fw;
	unsigned long msgs;
	struct device dev;
	u8 buf[FW_SIZE + 1];

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	board_firmware(f->m);

	msgs = f->c.messages;
	assert_int_equal(request_firmware(&fw, "acme/none.bin", &dev), -ENOENT);
	assert_null(fw);
	assert_int_equal(f->c.messages, msgs + 1);
	assert_int_equal(f->c.last_level, DMAMAP_LOG_WARN);
	assert_non_null(strstr(f->c.last, "Direct firmware load for acme/none.bin failed with error -2"));
	/* the quiet forms say nothing */
	assert_int_equal(firmware_request_nowarn(&fw, "acme/none.bin", &dev), -ENOENT);
	assert_int_equal(request_firmware_direct(&fw, "acme/none.bin", &dev), -ENOENT);
	assert_int_equal(f->c.messages, msgs + 1);

	assert_int_equal(dmamap_firmware_add(f->m, "acme/empty.bin", NULL, 0), 0);
	assert_int_equal(request_firmware(&fw, "acme/empty.bin", &dev), -EINVAL);
	assert_null(fw);

	/* into a buffer: one byte short is -EFBIG and the buffer untouched; exactly the size is enough */
	memset(buf, 0xee, sizeof(buf));
	fw = (const void *)&fw;
	assert_int_equal(request_firmware_into_buf(&fw, FW_NAME, &dev, buf, FW_SIZE - 1), -EFBIG);
	assert_null(fw);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	assert_int_equal(request_firmware_into_buf(&fw, FW_NAME, &dev, buf, FW_SIZE), 0);
	assert_ptr_equal(fw->data, buf);
	assert_int_equal(fw->size, FW_SIZE);
	assert_memory_equal(buf, fw_bytes, FW_SIZE);
	assert_int_equal(buf[FW_SIZE], 0xee);
	release_firmware(fw);
	assert_int_equal(buf[0], fw_bytes[0]); /* the buffer is the driver's still */
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	assert_int_equal(f->c.reports, 0);
	dmamap_device_release(&dev);
}

/* Bytes loaded into a kmalloc buffer are the CPU's stores: the device sees them once the buffer is mapped. */
static void test_into_buf_is_cpu_stores(void **state)
{
	struct current_fx *f = *state;
	const struct firmware *fw;
	struct device dev;
	u8 seen[FW_SIZE];
	dma_addr_t h;
	u8 *buf;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	assert_int_equal(dma_set_mask(&dev, DMA_BIT_MASK(32)), 0);
	board_firmware(f->m);
	buf = kzalloc(FW_SIZE, GFP_KERNEL);
	assert_non_null(buf);
	/* mapped and unmapped once: the zeroes are in memory, then the firmware goes into the CPU's cache */
	h = dma_map_single(&dev, buf, FW_SIZE, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&dev, h));
	dma_unmap_single(&dev, h, FW_SIZE, DMA_TO_DEVICE);
	assert_int_equal(request_firmware_into_buf(&fw, FW_NAME, &dev, buf, FW_SIZE), 0);
	/* a device that reads it unmapped (reported) sees memory: still the zeroes */
	assert_int_equal(dmamap_dev_read(&dev, h, seen, sizeof(seen)), 0);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_DEV_UNMAPPED], 1);
	for (size_t i = 0; i < sizeof(seen); i++)
		assert_int_equal(seen[i], 0);
	f->c.reports = 0;
	h = dma_map_single(&dev, buf, FW_SIZE, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&dev, h));
	assert_int_equal(dmamap_dev_read(&dev, h, seen, sizeof(seen)), 0);
	assert_memory_equal(seen, fw_bytes, sizeof(seen));
	dma_unmap_single(&dev, h, FW_SIZE, DMA_TO_DEVICE);
	release_firmware(fw);
	kfree(buf);
	assert_int_equal(f->c.reports, 0);
	dmamap_device_release(&dev);
}

/* ------------------------------------------------------------ misuse */

static void test_bad_input_reported(void **state)
{
	struct current_fx *f = *state;
	const struct firmware *fw, *held;
	struct firmware fake = { 0 };
	struct device dev;
	u8 buf[8];
	int line;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	board_firmware(f->m);
	assert_int_equal(request_firmware(&held, FW_NAME, &dev), 0);

	assert_int_equal(request_firmware(NULL, FW_NAME, &dev), -EINVAL); line = __LINE__;
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last, "NULL firmware pointer"));
	assert_int_equal(request_firmware(&fw, NULL, &dev), -EINVAL);
	assert_null(fw);
	assert_non_null(strstr(f->c.last, "no file name"));
	assert_int_equal(request_firmware(&fw, "", &dev), -EINVAL);
	assert_int_equal(request_firmware_into_buf(&fw, FW_NAME, &dev, buf, 0), -EINVAL);
	assert_non_null(strstr(f->c.last, "a buffer of 0 bytes"));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);

	/* a second release, and a struct the loader never gave: compared, never read; the image held is untouched */
	release_firmware(&fake); line = __LINE__;
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last, "no firmware image held now"));
	fw = held;
	release_firmware(held);
	release_firmware(fw); line = __LINE__;
	assert_int_equal(f->c.last_line, line);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 6);
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);

	/* the board's mistakes: a name twice (the file kept as it was), no name, no data */
	assert_int_equal(dmamap_firmware_add(f->m, FW_NAME, buf, sizeof(buf)), -EEXIST);
	assert_int_equal(dmamap_firmware_add(f->m, "", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(dmamap_firmware_add(f->m, "x.bin", NULL, 4), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 9);
	/* no machine: said process-wide */
	{
		struct capture pw;

		capture_start(&pw, NULL);
		assert_int_equal(dmamap_firmware_add(NULL, "x.bin", buf, 4), -EINVAL);
		capture_stop(NULL);
		assert_int_equal(pw.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
		assert_non_null(strstr(pw.last, "NULL machine"));
	}
	assert_int_equal(request_firmware(&fw, FW_NAME, &dev), 0);
	assert_int_equal(fw->size, FW_SIZE);
	release_firmware(fw);
	assert_int_equal(dmamap_firmware_remove(f->m, "x.bin"), -ENOENT);
	assert_int_equal(dmamap_firmware_remove(f->m, FW_NAME), 0);
	assert_int_equal(dmamap_firmware_remove(f->m, FW_NAME), -ENOENT);
	assert_int_equal(f->c.reports, 9);
	f->c.reports = 0;
	dmamap_device_release(&dev);
}

/* A request may sleep: from under a spinlock it is reported, and loads all the same. */
static void test_request_may_sleep(void **state)
{
	struct current_fx *f = *state;
	const struct firmware *fw;
	DEFINE_SPINLOCK(lock);
	int line;

	board_firmware(f->m);
	spin_lock(&lock);
	assert_int_equal(request_firmware(&fw, FW_NAME, NULL), 0); line = __LINE__;
	spin_unlock(&lock);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 1);
	assert_int_equal(f->c.last_line, line);
	/* release_firmware() does not sleep */
	spin_lock(&lock);
	release_firmware(fw);
	spin_unlock(&lock);
	assert_int_equal(f->c.reports, 1);
	f->c.reports = 0;
}

/* ------------------------------------------------- what a driver leaves */

static int leaky_line;

static int leaky_probe(struct platform_device *pdev)
{
	const struct firmware *fw;

	leaky_line = __LINE__ + 1;
	return request_firmware(&fw, FW_NAME, &pdev->dev);
}

static struct platform_driver leaky_driver = {
	.probe = leaky_probe,
	.driver = { .name = "leaky" },
};

static void test_left_at_unbind_and_release(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "leaky", 0);
	struct dmamap_machine *m2;
	const struct firmware *fw;
	struct capture c2;
	struct device dev;
	int line;

	assert_false(IS_ERR(pdev));
	board_firmware(f->m);
	assert_int_equal(dmamap_platform_bind(pdev, &leaky_driver), 0);
	assert_int_equal(dmamap_firmware_loaded(f->m), 1);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(f->c.last_line, leaky_line);
	assert_non_null(strstr(f->c.last, "firmware " FW_NAME " (5000 bytes) loaded by request_firmware() never released"));
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	dmamap_platform_device_destroy(pdev);

	/* a plain device: at its release */
	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	assert_int_equal(firmware_request_nowarn(&fw, FW_NAME, &dev), 0); line = __LINE__;
	dmamap_device_release(&dev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 2);
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last, "loaded by firmware_request_nowarn()"));
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	f->c.reports = 0;

	/* no device: at the machine's destroy, which frees the directory too */
	m2 = test_machine(16, NULL);
	board_firmware(m2);
	dmamap_machine_set_current(m2);
	assert_int_equal(request_firmware(&fw, FW_NAME, NULL), 0); line = __LINE__;
	dmamap_machine_set_current(f->m);
	assert_int_equal(dmamap_firmware_loaded(m2), 1);
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	capture_start(&c2, m2);
	test_machine_destroy(m2);
	assert_int_equal(c2.reports, 1);
	assert_int_equal(c2.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(c2.last_line, line);
}

/* ----------------------------------------------------- in the background */

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int calls;
	bool got;            /* the callback was given an image */
	bool right_bytes;
	bool own_thread;     /* it ran in another thread than the test's */
	void *context_seen;
	pthread_t test_thread;
};

static void fw_ready(const struct firmware *fw, void *context)
{
	struct waiter *w = context;

	pthread_mutex_lock(&w->lock);
	w->calls++;
	w->got = fw != NULL;
	w->right_bytes = fw && fw->size == FW_SIZE && !memcmp(fw->data, fw_bytes, FW_SIZE);
	w->own_thread = !pthread_equal(pthread_self(), w->test_thread);
	w->context_seen = context;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	release_firmware(fw);
}

static void waiter_init(struct waiter *w)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->test_thread = pthread_self();
}

static void wait_calls(struct waiter *w, int n)
{
	pthread_mutex_lock(&w->lock);
	while (w->calls < n)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void test_nowait_runs_in_a_worker(void **state)
{
	struct current_fx *f = *state;
	struct waiter w;
	struct device dev;

	waiter_init(&w);
	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	board_firmware(f->m);
	assert_int_equal(request_firmware_nowait(THIS_MODULE, FW_ACTION_UEVENT, FW_NAME, &dev, GFP_KERNEL, &w, fw_ready),
			 0);
	wait_calls(&w, 1);
	assert_true(w.got);
	assert_true(w.right_bytes);
	assert_true(w.own_thread);
	assert_ptr_equal(w.context_seen, &w);
	/* a file that is not there: the callback is told with NULL */
	assert_int_equal(request_firmware_nowait(THIS_MODULE, FW_ACTION_UEVENT, "acme/none.bin", &dev, GFP_KERNEL, &w,
						 fw_ready),
			 0);
	wait_calls(&w, 2);
	assert_false(w.got);
	flush_workqueue(system_wq);
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	/* no callback, no name: refused at once */
	assert_int_equal(request_firmware_nowait(THIS_MODULE, 1, FW_NAME, &dev, GFP_KERNEL, &w, NULL), -EINVAL);
	assert_int_equal(request_firmware_nowait(THIS_MODULE, 1, NULL, &dev, GFP_KERNEL, &w, fw_ready), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	flush_workqueue(system_wq);
	assert_int_equal(w.calls, 2);
	f->c.reports = 0;
	dmamap_device_release(&dev);
}

/* A gate the system queue's worker waits at, so that what is queued behind it stays queued. */
struct gate {
	struct work_struct work;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open, reached;
};

static void gate_fn(struct work_struct *work)
{
	struct gate *g = container_of(work, struct gate, work);

	pthread_mutex_lock(&g->lock);
	g->reached = true;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static struct waiter pending_w;
static int pending_line;

static int pending_probe(struct platform_device *pdev)
{
	pending_line = __LINE__ + 1; /* one line: compilers differ on __LINE__ in a macro call over several */
	return request_firmware_nowait(THIS_MODULE, FW_ACTION_UEVENT, FW_NAME, &pdev->dev, GFP_KERNEL, &pending_w, fw_ready);
}

static struct platform_driver pending_driver = {
	.probe = pending_probe,
	.driver = { .name = "pending" },
};

/* A background request still queued when its driver unbinds: reported, and its callback never runs. */
static void test_nowait_pending_at_unbind_cancelled(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "pending", 0);
	struct gate g;

	assert_false(IS_ERR(pdev));
	board_firmware(f->m);
	waiter_init(&pending_w);
	memset(&g, 0, sizeof(g));
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.cond, NULL);
	INIT_WORK(&g.work, gate_fn);
	assert_true(queue_work(system_wq, &g.work));
	pthread_mutex_lock(&g.lock);
	while (!g.reached)
		pthread_cond_wait(&g.cond, &g.lock);
	pthread_mutex_unlock(&g.lock);

	assert_int_equal(dmamap_platform_bind(pdev, &pending_driver), 0);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(f->c.last_line, pending_line);
	assert_non_null(strstr(f->c.last, "request_firmware_nowait(" FW_NAME "): its callback has not run yet"));

	pthread_mutex_lock(&g.lock);
	g.open = true;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	flush_workqueue(system_wq);
	assert_int_equal(pending_w.calls, 0);
	assert_int_equal(dmamap_firmware_loaded(f->m), 0);
	f->c.reports = 0;
	dmamap_platform_device_destroy(pdev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_driver_loads_its_firmware, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_image_is_a_private_read_only_copy, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_missing_empty_and_too_big, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_into_buf_is_cpu_stores, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_input_reported, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_request_may_sleep, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_left_at_unbind_and_release, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_nowait_runs_in_a_worker, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_nowait_pending_at_unbind_cancelled, current_fx_setup,
						current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
