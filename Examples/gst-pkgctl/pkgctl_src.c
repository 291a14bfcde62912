/*
 * pkgctlsrc: GstBaseSrc for the host's custom scheme (app:// unless PKGCTL_MEDIA_SCHEMES says).
 * Each element owns a resolver (settings from the environment, media_settings.h) and drives it
 * on the thread that asks for data: create() polls pkgctl_resolver_fd() and calls
 * pkgctl_resolver_dispatch(), so the task's callbacks run there (pkgctl_src_request.c). A request asks for CHUNK bytes, `Range: bytes=N-(N+CHUNK-1)`, and the next goes on
 * where it ended; the first one (in start()) gives the size and whether the answer can seek.
 * The last HISTORY bytes read stay at hand, as demuxers pulling a file read an element's head,
 * then the element again. A read elsewhere (a seek, or a demuxer pulling another part of the
 * file) stops the request and starts one at the new offset. Body bytes are reported consumed
 * only once a read needs them (explicit consumption, a 256 KiB window), so a request has read
 * at most a window past the last read, and an abandoned one no more.
 */
#include "pkgctl_src_private.h"

#include "media_settings.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/eventfd.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC(pkgctl_src_debug);
#define GST_CAT_DEFAULT pkgctl_src_debug

/* A read at most this far past the bytes at hand skips bytes instead of starting a new request. */
#define SKIP_LIMIT (64 * 1024)
#define BLOCK_SIZE (64 * 1024)
/* Bytes kept behind the last read, for reads that go back a little. */
#define HISTORY (256 * 1024)

G_DEFINE_TYPE_WITH_CODE(GstPkgctlSrc, gst_pkgctl_src, GST_TYPE_BASE_SRC,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_URI_HANDLER, gst_pkgctl_src_uri_handler_init)
                            GST_DEBUG_CATEGORY_INIT(pkgctl_src_debug, "pkgctlsrc", 0, "custom-scheme media through pkgctl"))

enum { PROP_0, PROP_LOCATION };

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* MARK: GstBaseSrc */

static gboolean gst_pkgctl_src_stop(GstBaseSrc *base);

/* GstBaseSrc calls stop() only after a start() that succeeded: a failed one undoes itself. */
static gboolean gst_pkgctl_src_start(GstBaseSrc *base) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(base);
    pkgctl_resolver_options options;
    const char *problem;
    char error[256];
    if (!self->uri) {
        GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("no URI set"), (NULL));
        return FALSE;
    }
    if (!media_settings_read(&options, &problem)) {
        GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", problem), (NULL));
        return FALSE;
    }
    self->resolver = pkgctl_resolver_create(&options, error, sizeof error);
    if (!self->resolver) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("pkgctl resolver: %s", error), (NULL));
        return FALSE;
    }
    self->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (self->wake < 0) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("eventfd: %s", g_strerror(errno)), (NULL));
        gst_pkgctl_src_stop(base);
        return FALSE;
    }
    g_atomic_int_set(&self->flushing, 0);
    self->size = 0;
    self->seekable = FALSE;
    /* The first request's head says the size and whether the file can seek, which GstBaseSrc asks next. */
    gst_pkgctl_src_restart_at(self, 0);
    gboolean idle = FALSE;
    while (!self->responded && !self->ended && gst_pkgctl_src_pump(self, &idle)) {}
    gchar *failure = idle ? g_strdup_printf("%s: no answer within %d s", self->uri, IDLE_SECONDS)
                          : gst_pkgctl_src_request_failure(self);
    if (!failure && !self->responded) failure = g_strdup_printf("%s: flushed before its answer", self->uri);
    if (failure) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("%s", failure), (NULL));
        g_free(failure);
        gst_pkgctl_src_stop(base);
        return FALSE;
    }
    GST_INFO_OBJECT(self, "%s: %d, size %" PRIu64 ", %sseekable", self->uri, self->status, self->size,
                    self->seekable ? "" : "not ");
    return TRUE;
}

static gboolean gst_pkgctl_src_stop(GstBaseSrc *base) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(base);
    gst_pkgctl_src_end_request(self);
    g_byte_array_set_size(self->pending, 0);
    if (self->resolver) pkgctl_resolver_destroy(self->resolver);
    self->resolver = NULL;
    if (self->wake >= 0) close(self->wake);
    self->wake = -1;
    return TRUE;
}

static gboolean gst_pkgctl_src_get_size(GstBaseSrc *base, guint64 *size) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(base);
    *size = self->size;
    return self->size > 0;
}

static gboolean gst_pkgctl_src_is_seekable(GstBaseSrc *base) {
    return GST_PKGCTL_SRC(base)->seekable;
}

/* GstBaseSrc pauses the streaming thread first: the request there can be stopped here, and
 * the next create() starts one at the segment's start. */
static gboolean gst_pkgctl_src_do_seek(GstBaseSrc *base, GstSegment *segment) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(base);
    if (segment->start != 0 && !self->seekable) return FALSE;
    if (self->task && segment->start != self->consumed) {
        gst_pkgctl_src_end_request(self);
        g_byte_array_set_size(self->pending, 0);
    }
    segment->time = segment->start;
    return TRUE;
}

/* The file offset of the next byte the request in flight delivers. */
static uint64_t received_end(GstPkgctlSrc *self) {
    return self->base + self->pending->len;
}

/* Reports the bytes up to `offset` as read (explicit consumption), once. */
static void consume_to(GstPkgctlSrc *self, uint64_t offset) {
    if (offset <= self->consumed) return;
    pkgctl_task_consumed(self->task, (size_t)(offset - self->consumed));
    self->consumed = offset;
}

/* Makes the request in flight cover `offset`: the bytes at hand, a short skip forward, or else
 * another request there. */
static void reposition(GstPkgctlSrc *self, uint64_t offset) {
    if (self->task && offset >= self->base && offset <= received_end(self)) return;
    if (self->task && offset > received_end(self) && offset - received_end(self) <= SKIP_LIMIT && offset <= self->last &&
        !self->ended) {
        consume_to(self, received_end(self));
        self->skip += offset - received_end(self); /* consumed as on_data drops them */
        g_byte_array_set_size(self->pending, 0);
        self->base = self->consumed = offset;
        return;
    }
    if (offset != self->base || self->task)
        GST_DEBUG_OBJECT(self, "read at %" PRIu64 ", outside %" PRIu64 "-%" PRIu64 ": new request", offset,
                         self->base, received_end(self));
    gst_pkgctl_src_restart_at(self, offset);
}

static GstFlowReturn gst_pkgctl_src_create(GstBaseSrc *base, guint64 offset, guint length, GstBuffer **buffer) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(base);
    if (self->size && offset >= self->size) return GST_FLOW_EOS;
    if (offset != 0 && !self->seekable && offset != received_end(self)) {
        GST_ELEMENT_ERROR(self, RESOURCE, SEEK, ("%s: its answer cannot seek", self->uri), (NULL));
        return GST_FLOW_ERROR;
    }
    reposition(self, offset);
    /* A pull (a demuxer reading a cluster) must get all it asks for unless the file ends first. */
    uint64_t wanted = self->size ? MIN(offset + length, self->size) : offset + length;
    gboolean idle = FALSE;
    while (received_end(self) < wanted) {
        gchar *failure = gst_pkgctl_src_request_failure(self);
        if (!failure && self->ended && self->status == 206 && self->size && received_end(self) < self->size) {
            gst_pkgctl_src_end_request(self); /* its range is done: the next one goes on from there */
            gst_pkgctl_src_start_request(self, received_end(self));
            continue;
        }
        if (!failure && self->ended) {
            if (!self->size && received_end(self) > offset) break;
            if (!self->size || offset >= self->size) return GST_FLOW_EOS;
            failure = g_strdup_printf("%s: the answer ended at byte %" PRIu64 " of %" PRIu64, self->uri,
                                      received_end(self), self->size);
        }
        consume_to(self, received_end(self)); /* the bytes at hand are the element's: the next ones may come */
        if (!failure && !gst_pkgctl_src_pump(self, &idle)) {
            if (!idle) return GST_FLOW_FLUSHING;
            failure = g_strdup_printf("%s: no data within %d s", self->uri, IDLE_SECONDS);
        }
        if (failure) {
            GST_ELEMENT_ERROR(self, RESOURCE, READ, ("%s", failure), (NULL));
            g_free(failure);
            return GST_FLOW_ERROR;
        }
    }
    guint count = (guint)MIN((uint64_t)length, received_end(self) - offset);
    *buffer = gst_buffer_new_allocate(NULL, count, NULL);
    gst_buffer_fill(*buffer, 0, self->pending->data + (offset - self->base), count);
    GST_BUFFER_OFFSET(*buffer) = offset;
    GST_BUFFER_OFFSET_END(*buffer) = offset + count;
    consume_to(self, offset + count);
    if (offset + count - self->base > HISTORY) {
        guint dropped = (guint)(offset + count - self->base - HISTORY);
        g_byte_array_remove_range(self->pending, 0, dropped);
        self->base += dropped;
    }
    return GST_FLOW_OK;
}

static gboolean gst_pkgctl_src_unlock(GstBaseSrc *base) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(base);
    g_atomic_int_set(&self->flushing, 1);
    if (self->wake >= 0 && eventfd_write(self->wake, 1) < 0) GST_WARNING_OBJECT(self, "eventfd_write failed");
    return TRUE;
}

static gboolean gst_pkgctl_src_unlock_stop(GstBaseSrc *base) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(base);
    eventfd_t drained;
    if (self->wake >= 0) (void)eventfd_read(self->wake, &drained);
    g_atomic_int_set(&self->flushing, 0);
    return TRUE;
}

/* MARK: GObject */

static void gst_pkgctl_src_set_property(GObject *object, guint id, const GValue *value, GParamSpec *spec) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(object);
    GError *error = NULL;
    if (id != PROP_LOCATION) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
    } else if (!gst_pkgctl_src_set_location(self, g_value_get_string(value), &error)) {
        GST_WARNING_OBJECT(self, "%s", error->message);
        g_error_free(error);
    }
}

static void gst_pkgctl_src_get_property(GObject *object, guint id, GValue *value, GParamSpec *spec) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(object);
    if (id != PROP_LOCATION) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
        return;
    }
    g_mutex_lock(&self->uri_lock);
    g_value_set_string(value, self->uri);
    g_mutex_unlock(&self->uri_lock);
}

static void gst_pkgctl_src_finalize(GObject *object) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(object);
    g_free(self->uri);
    g_free(self->message);
    g_byte_array_unref(self->pending);
    g_mutex_clear(&self->uri_lock);
    G_OBJECT_CLASS(gst_pkgctl_src_parent_class)->finalize(object);
}

static void gst_pkgctl_src_init(GstPkgctlSrc *self) {
    g_mutex_init(&self->uri_lock);
    self->pending = g_byte_array_new();
    self->wake = -1;
    gst_base_src_set_blocksize(GST_BASE_SRC(self), BLOCK_SIZE);
}

static void gst_pkgctl_src_class_init(GstPkgctlSrcClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
    GstBaseSrcClass *base_class = GST_BASE_SRC_CLASS(klass);
    object_class->set_property = gst_pkgctl_src_set_property;
    object_class->get_property = gst_pkgctl_src_get_property;
    object_class->finalize = gst_pkgctl_src_finalize;
    g_object_class_install_property(
        object_class, PROP_LOCATION,
        g_param_spec_string("location", "Location", "The URL to read (of a scheme in PKGCTL_MEDIA_SCHEMES)", NULL,
                            G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(element_class, "pkgctl custom-scheme source", "Source/Network",
                                          "Reads custom-scheme URLs through pkgctl's resolver (package, overlay or origin)",
                                          "pkgctl maintainers");
    base_class->start = gst_pkgctl_src_start;
    base_class->stop = gst_pkgctl_src_stop;
    base_class->get_size = gst_pkgctl_src_get_size;
    base_class->is_seekable = gst_pkgctl_src_is_seekable;
    base_class->do_seek = gst_pkgctl_src_do_seek;
    base_class->create = gst_pkgctl_src_create;
    base_class->unlock = gst_pkgctl_src_unlock;
    base_class->unlock_stop = gst_pkgctl_src_unlock_stop;
}
