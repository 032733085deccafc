/* SPDX-License-Identifier: MIT */
/*
 * Firmware files and their loading (<dmamap/firmware.h>). Each machine's
 * directory, every image loaded and not released, and every background
 * request not yet started are under one process-wide lock; so an image or
 * a request is checked before it is used, and the ones a device leaves are
 * found at its unbind. An image's bytes are a private read-only mapping.
 */
#include <sys/mman.h>

#include "internal.h"

struct dm_fw_file {
	struct dm_fw_file *next;
	char *name;
	u8 *data;
	size_t size;
};

/* A request_firmware_nowait() not started yet: the system queue's item first. */
struct dm_fw_req {
	struct dmamap_work work;
	struct dm_fw_req *next;     /* the directory's queued requests */
	struct dmamap_machine *m;
	struct device *dev;
	char *name;
	void *context;
	void (*cont)(const struct firmware *fw, void *context);
	const char *file;
	int line;
	bool cancelled;             /* taken off by an unbind: its canceller frees it */
};

struct dm_fw_dir {
	struct dm_fw_file *files;
	struct dm_fw_req *queued;
};

struct dm_fw_image {
	struct firmware fw;         /* what the driver holds */
	struct dm_fw_image *next;   /* the process's live images */
	struct dmamap_machine *m;
	struct device *dev;         /* the device that asked, or NULL */
	void *map;                  /* the read-only copy, or NULL (into a buffer, or nothing to copy) */
	size_t map_len;
	char *name;
	const char *what;           /* the call that loaded it */
	const char *file;
	int line;
};

static pthread_mutex_t fw_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dm_fw_image *live_images;

/* @m's directory, made on first use when @make; NULL if none (or no memory). Under fw_lock. */
static struct dm_fw_dir *dir_of(struct dmamap_machine *m, bool make)
{
	struct dm_fw_dir *d = m->layer[DMAMAP_LAYER_FIRMWARE];

	if (!d && make) {
		d = dmamap_zalloc(m, sizeof(*d));
		m->layer[DMAMAP_LAYER_FIRMWARE] = d;
	}
	return d;
}

static struct dm_fw_file *file_find(const struct dm_fw_dir *d, const char *name)
{
	for (struct dm_fw_file *f = d ? d->files : NULL; f; f = f->next)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static char *name_dup(struct dmamap_machine *m, const char *name)
{
	size_t n = strlen(name) + 1;
	char *s = dmamap_zalloc(m, n);

	if (s)
		memcpy(s, name, n);
	return s;
}

static void file_free(struct dm_fw_file *f)
{
	dmamap_free(f->name);
	dmamap_free(f->data);
	dmamap_free(f);
}

static void image_free(struct dm_fw_image *img)
{
	if (img->map)
		munmap(img->map, img->map_len);
	dmamap_free(img->name);
	dmamap_free(img);
}

DMAMAP_API int dmamap_firmware_add(struct dmamap_machine *m, const char *name, const void *data, size_t size)
{
	struct dm_fw_file *f;
	struct dm_fw_dir *d;
	int err = 0;

	if (!m || !name || !*name || (!data && size)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "dmamap_firmware_add: %s; nothing added",
			      !m ? "NULL machine" : !name || !*name ? "no file name" : "NULL data with a size");
		return -EINVAL;
	}
	f = dmamap_zalloc(m, sizeof(*f));
	if (f) {
		f->name = name_dup(m, name);
		f->data = dmamap_zalloc(m, size ? size : 1);
		f->size = size;
	}
	if (!f || !f->name || !f->data) {
		if (f)
			file_free(f);
		return -ENOMEM;
	}
	if (size)
		memcpy(f->data, data, size);
	pthread_mutex_lock(&fw_lock);
	d = dir_of(m, true);
	if (!d) {
		err = -ENOMEM;
	} else if (file_find(d, name)) {
		err = -EEXIST;
	} else {
		f->next = d->files;
		d->files = f;
	}
	pthread_mutex_unlock(&fw_lock);
	if (err) {
		if (err == -EEXIST)
			dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
				      "dmamap_firmware_add(%s): the machine has a file of that name already; nothing added",
				      name);
		file_free(f);
	}
	return err;
}

DMAMAP_API int dmamap_firmware_remove(struct dmamap_machine *m, const char *name)
{
	struct dm_fw_file **pp, *f = NULL;
	struct dm_fw_dir *d;

	if (!m || !name)
		return -ENOENT;
	pthread_mutex_lock(&fw_lock);
	d = dir_of(m, false);
	for (pp = d ? &d->files : NULL; pp && *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->name, name)) {
			f = *pp;
			*pp = f->next;
			break;
		}
	}
	pthread_mutex_unlock(&fw_lock);
	if (!f)
		return -ENOENT;
	file_free(f);
	return 0;
}

DMAMAP_API unsigned long dmamap_firmware_loaded(struct dmamap_machine *m)
{
	unsigned long n = 0;

	if (!m)
		return 0;
	pthread_mutex_lock(&fw_lock);
	for (const struct dm_fw_image *img = live_images; img; img = img->next)
		n += img->m == m;
	pthread_mutex_unlock(&fw_lock);
	return n;
}

/*
 * Load @name from @m's directory for @dev by @what (the arguments checked):
 * 0 with *@out the image, now live, or an error with *@out NULL.
 */
static int load(struct dmamap_machine *m, struct device *dev, const char *name, unsigned int flags, void *buf,
		size_t size, const char *what, const char *file, int line, const struct firmware **out)
{
	struct dm_fw_image *img = dmamap_zalloc(m, sizeof(*img));
	const struct dm_fw_file *f;
	int err = 0;

	*out = NULL;
	if (img)
		img->name = name_dup(m, name);
	if (!img || !img->name) {
		if (img)
			image_free(img);
		return -ENOMEM;
	}
	pthread_mutex_lock(&fw_lock);
	f = file_find(dir_of(m, false), name);
	if (!f) {
		err = -ENOENT;
	} else if (!f->size) {
		err = -EINVAL;
	} else if (buf) {
		if (f->size > size) {
			err = -EFBIG;
		} else {
			memcpy(buf, f->data, f->size);
			img->fw.data = buf;
		}
	} else {
		img->map_len = PAGE_ALIGN(f->size);
		img->map = mmap(NULL, img->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (img->map == MAP_FAILED) {
			img->map = NULL;
			err = -ENOMEM;
		} else {
			memcpy(img->map, f->data, f->size);
			if (mprotect(img->map, img->map_len, PROT_READ))
				err = -ENOMEM;
			img->fw.data = img->map;
		}
	}
	if (!err) {
		img->fw.size = f->size;
		img->m = m;
		img->dev = dev;
		img->what = what;
		img->file = file;
		img->line = line;
		img->next = live_images;
		live_images = img;
	}
	pthread_mutex_unlock(&fw_lock);
	if (err) {
		image_free(img);
		if (!(flags & DMAMAP_FW_NOWARN))
			dmamap_log(m, DMAMAP_LOG_WARN, dev ? dev->dmamap.name : NULL,
				   "Direct firmware load for %s failed with error %d", name, err);
		return err;
	}
	*out = &img->fw;
	return 0;
}

/* The machine a request of @dev reads, reporting why there is none for @what: NULL then. */
static struct dmamap_machine *request_machine(struct device *dev, const char *name, const char *what,
					      const char *file, int line)
{
	struct dmamap_machine *m;

	if (dev && !dm_dev_ok(dev, what, file, line))
		return NULL;
	m = dev ? dm_dev_machine(dev) : dmamap_machine_current();
	if (!m || !name || !*name) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev ? dev->dmamap.name : NULL, file, line, "%s: %s", what,
			      !m ? "no device and no current machine" : "no file name");
		return NULL;
	}
	return m;
}

DMAMAP_API int dmamap_request_firmware_at(const struct firmware **fw, const char *name, struct device *dev,
					  unsigned int flags, void *buf, size_t size, const char *file, int line)
{
	const char *what = buf		       ? "request_firmware_into_buf"
			   : flags & DMAMAP_FW_NOWARN ? "firmware_request_nowarn"
						      : "request_firmware";
	struct dmamap_machine *m;

	if (!fw) {
		dmamap_report(dev && dm_dev_live(dev) ? dm_dev_machine(dev) : NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file,
			      line, "%s(%s): NULL firmware pointer", what, name ? name : "(null)");
		return -EINVAL;
	}
	*fw = NULL;
	m = request_machine(dev, name, what, file, line);
	if (!m)
		return -EINVAL;
	if (buf && !size) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev ? dev->dmamap.name : NULL, file, line,
			      "%s(%s): a buffer of 0 bytes", what, name);
		return -EINVAL;
	}
	dmamap_might_sleep_at(what, file, line);
	return load(m, dev, name, flags, buf, size, what, file, line, fw);
}

/* The system queue's run of a background request. */
static void fw_work(struct work_struct *w)
{
	struct dm_fw_req *r = (struct dm_fw_req *)(void *)w;
	const struct firmware *fw;
	struct dm_fw_req **pp;
	struct dm_fw_dir *d;

	pthread_mutex_lock(&fw_lock);
	if (r->cancelled) {
		pthread_mutex_unlock(&fw_lock);
		return;
	}
	d = dir_of(r->m, false);
	for (pp = &d->queued; *pp != r; pp = &(*pp)->next)
		;
	*pp = r->next;
	pthread_mutex_unlock(&fw_lock);
	(void)load(r->m, r->dev, r->name, 0, NULL, 0, "request_firmware_nowait", r->file, r->line, &fw);
	r->cont(fw, r->context);
	dmamap_free(r->name);
	dmamap_free(r);
}

DMAMAP_API int dmamap_request_firmware_nowait_at(bool uevent, const char *name, struct device *dev, void *context,
						 void (*cont)(const struct firmware *fw, void *context),
						 const char *file, int line)
{
	const char *what = "request_firmware_nowait";
	struct dmamap_machine *m = request_machine(dev, name, what, file, line);
	struct dmamap_wq *wq;
	struct dm_fw_req *r;
	struct dm_fw_dir *d;

	(void)uevent;
	if (!m)
		return -EINVAL;
	if (!cont) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev ? dev->dmamap.name : NULL, file, line,
			      "%s(%s): NULL callback", what, name);
		return -EINVAL;
	}
	r = dmamap_zalloc(m, sizeof(*r));
	if (r)
		r->name = name_dup(m, name);
	if (!r || !r->name) {
		dmamap_free(r);
		return -ENOMEM;
	}
	dmamap_work_init(&r->work, fw_work);
	r->m = m;
	r->dev = dev;
	r->context = context;
	r->cont = cont;
	r->file = file;
	r->line = line;
	/* queued under the lock, so that an unbind finds it listed only once it is on the queue */
	wq = dmamap_wq_system();
	pthread_mutex_lock(&fw_lock);
	d = wq ? dir_of(m, true) : NULL;
	if (d) {
		r->next = d->queued;
		d->queued = r;
		(void)dmamap_queue_work_at(wq, &r->work, 0, file, line);
	}
	pthread_mutex_unlock(&fw_lock);
	if (!d) {
		dmamap_free(r->name);
		dmamap_free(r);
		return -ENOMEM;
	}
	return 0;
}

DMAMAP_API void dmamap_release_firmware_at(const struct firmware *fw, const char *file, int line)
{
	struct dm_fw_image **pp, *img = NULL;

	if (!fw)
		return;
	pthread_mutex_lock(&fw_lock);
	for (pp = &live_images; *pp; pp = &(*pp)->next) {
		if (&(*pp)->fw == fw) {
			img = *pp;
			*pp = img->next;
			break;
		}
	}
	pthread_mutex_unlock(&fw_lock);
	if (!img) {
		dmamap_report(dmamap_machine_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "release_firmware(%p): no firmware image held now (released already?): nothing done",
			      (const void *)fw);
		return;
	}
	image_free(img);
}

/*
 * Take off, under fw_lock, the images and queued requests that @dev (NULL:
 * any of machine @m) left: the images onto *@images, the requests, marked
 * cancelled, onto *@reqs.
 */
static void take_left(struct dmamap_machine *m, struct device *dev, struct dm_fw_image **images,
		      struct dm_fw_req **reqs)
{
	struct dm_fw_dir *d = dir_of(m, false);

	for (struct dm_fw_image **pp = &live_images; *pp;) {
		struct dm_fw_image *img = *pp;

		if (img->m != m || (dev && img->dev != dev)) {
			pp = &img->next;
			continue;
		}
		*pp = img->next;
		img->next = *images;
		*images = img;
	}
	for (struct dm_fw_req **pp = d ? &d->queued : NULL; pp && *pp;) {
		struct dm_fw_req *r = *pp;

		if (dev && r->dev != dev) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		r->cancelled = true;
		r->next = *reqs;
		*reqs = r;
	}
}

/* Report and undo what take_left() took. */
static void undo_left(struct dmamap_machine *m, struct dm_fw_image *images, struct dm_fw_req *reqs)
{
	int depth = dm_call_suspend(); /* the reports name the driver's own lines */

	while (images) {
		struct dm_fw_image *img = images;

		images = img->next;
		dmamap_report(m, DMAMAP_REPORT_LEAK, img->dev ? img->dev->dmamap.name : NULL, img->file, img->line,
			      "firmware %s (%zu bytes) loaded by %s() never released (release_firmware()); released now",
			      img->name, img->fw.size, img->what);
		image_free(img);
	}
	while (reqs) {
		struct dm_fw_req *r = reqs;

		reqs = r->next;
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, r->dev ? r->dev->dmamap.name : NULL, r->file, r->line,
			      "request_firmware_nowait(%s): its callback has not run yet, and would run after the "
			      "driver's remove; cancelled",
			      r->name);
		(void)dmamap_cancel_work_at(&r->work, true, NULL, 0);
		dmamap_free(r->name);
		dmamap_free(r);
	}
	dm_call_resume(depth);
}

void dmamap_firmware_unbind(struct device *dev)
{
	struct dm_fw_image *images = NULL;
	struct dm_fw_req *reqs = NULL;
	struct dmamap_machine *m = dm_dev_machine(dev);

	pthread_mutex_lock(&fw_lock);
	take_left(m, dev, &images, &reqs);
	pthread_mutex_unlock(&fw_lock);
	undo_left(m, images, reqs);
}

void dmamap_firmware_machine_fini(struct dmamap_machine *m)
{
	struct dm_fw_image *images = NULL;
	struct dm_fw_req *reqs = NULL;
	struct dm_fw_dir *d;

	pthread_mutex_lock(&fw_lock);
	take_left(m, NULL, &images, &reqs);
	d = dir_of(m, false);
	m->layer[DMAMAP_LAYER_FIRMWARE] = NULL;
	pthread_mutex_unlock(&fw_lock);
	undo_left(m, images, reqs);
	if (!d)
		return;
	while (d->files) {
		struct dm_fw_file *f = d->files;

		d->files = f->next;
		file_free(f);
	}
	dmamap_free(d);
}
