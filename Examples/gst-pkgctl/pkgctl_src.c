/*
 * pkgctlsrc: GstBaseSrc + GstURIHandler for app://. Each element owns a resolver (settings from
 * the environment, media_settings.h) and drives it on the thread that asks for data: create()
 * polls pkgctl_resolver_fd() and calls pkgctl_resolver_dispatch(), so the task's callbacks run
 * there. A request asks for CHUNK bytes, `Range: bytes=N-(N+CHUNK-1)`, and the next goes on
 * where it ended; the first one (in start()) gives the size and whether the answer can seek.
 * The last HISTORY bytes read stay at hand, as demuxers pulling a file read an element's head,
 * then the element again. A read elsewhere (a seek, or a demuxer pulling another part of the
 * file) stops the request and starts one at the new offset. Body bytes are reported consumed
 * only once a read needs them (explicit consumption, a 256 KiB window), so a request has read
 * at most a window past the last read, and an abandoned one no more.
 */
#include "pkgctl_src.h"

#include "media_settings.h"
#include "response_range.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC(pkgctl_src_debug);
#define GST_CAT_DEFAULT pkgctl_src_debug

/* Seconds a request may go without any callback before the read fails. */
#define IDLE_SECONDS 30
/* A read at most this far past the bytes at hand skips bytes instead of starting a new request. */
#define SKIP_LIMIT (64 * 1024)
#define BLOCK_SIZE (64 * 1024)
/* Bytes one request asks for. A request left behind by a seek is cut by the resolver, but what the
 * socket buffers took has left the origin already (megabytes on a fast link): a bounded range
 * bounds that too. */
#define CHUNK (512 * 1024)
/* Bytes kept behind the last read, for reads that go back a little. */
#define HISTORY (256 * 1024)

struct _GstPkgctlSrc {
    GstBaseSrc parent;
    GMutex uri_lock;
    gchar *uri;
    pkgctl_resolver *resolver;
    /* An eventfd unlock() writes, so a wait for the resolver returns at once when GStreamer flushes. */
    int wake;
    gint flushing;
    /* The request in flight (NULL: none), for bytes `requested` to `last`. */
    pkgctl_task *task;
    uint64_t requested, last;
    int32_t status;
    gboolean responded, ended;
    int32_t result;
    gchar *message;
    uint64_t delivered;
    /* Body bytes still to drop before `base` (a 200 to a ranged request, or a short skip). */
    uint64_t skip;
    /* Body bytes received: pending->data[0] is the file's byte `base`; those before `consumed` were reported used. */
    GByteArray *pending;
    uint64_t base, consumed;
    /* The file: its size (0: unknown) and whether its answers honour Range. */
    uint64_t size;
    gboolean seekable;
};

static void uri_handler_init(gpointer iface, gpointer data);

G_DEFINE_TYPE_WITH_CODE(GstPkgctlSrc, gst_pkgctl_src, GST_TYPE_BASE_SRC,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_URI_HANDLER, uri_handler_init)
                            GST_DEBUG_CATEGORY_INIT(pkgctl_src_debug, "pkgctlsrc", 0, "app:// through pkgctl"))

enum { PROP_0, PROP_LOCATION };

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* MARK: the request's callbacks (on the thread that dispatches) */

static void on_response(void *user, int32_t status, const pkgctl_header *headers, size_t count) {
    GstPkgctlSrc *self = user;
    self->responded = TRUE;
    self->status = status;
    struct response_range range;
    if (status != 200 && status != 206) return;
    if (!response_range_parse(status, headers, count, &range) || range.first > self->requested) {
        self->status = -status; /* an answer for other bytes than asked: refused in create() */
        return;
    }
    self->skip += self->requested - range.first; /* a 200 starts at byte 0 */
    if (range.total) self->size = range.total;
    if (self->requested == 0) self->seekable = range.ranged && range.total > 0;
}

static void on_data(void *user, const void *bytes, size_t length) {
    GstPkgctlSrc *self = user;
    self->delivered += length;
    size_t dropped = self->skip < length ? (size_t)self->skip : length;
    self->skip -= dropped;
    if (dropped) pkgctl_task_consumed(self->task, dropped);
    g_byte_array_append(self->pending, (const guint8 *)bytes + dropped, (guint)(length - dropped));
}

static void on_end(void *user, int32_t result, const char *message) {
    GstPkgctlSrc *self = user;
    self->ended = TRUE;
    self->result = result;
    g_free(self->message);
    self->message = g_strdup(message);
}

/* MARK: requests */

/* Starts the request for the CHUNK bytes from `offset`; they append to the bytes at hand. */
static void start_request(GstPkgctlSrc *self, uint64_t offset) {
    static const pkgctl_task_callbacks callbacks = {on_response, on_data, on_end};
    self->requested = self->consumed = offset;
    self->last = (self->size ? MIN(offset + CHUNK, self->size) : offset + CHUNK) - 1;
    gchar *range = g_strdup_printf("bytes=%" PRIu64 "-%" PRIu64, offset, self->last);
    const pkgctl_header headers[] = {{"Accept", "*/*"}, {"Range", range}};
    self->status = 0;
    self->responded = self->ended = FALSE;
    self->result = PKGCTL_OK;
    self->delivered = self->skip = 0;
    g_mutex_lock(&self->uri_lock);
    self->task = pkgctl_task_start(self->resolver, "GET", self->uri, headers, 2, NULL, 0, &callbacks, self);
    g_mutex_unlock(&self->uri_lock);
    g_free(range);
}

/* Stops the request in flight, if any, with its log line: one per request, the bytes it delivered.
 * The bytes at hand stay. */
static void end_request(GstPkgctlSrc *self) {
    if (!self->task) return;
    pkgctl_task_stop(self->task);
    self->task = NULL;
    g_mutex_lock(&self->uri_lock);
    fprintf(stderr, "pkgctl-media: GET %s bytes=%" PRIu64 "-%" PRIu64 " %d delivered=%" PRIu64 " %s%s\n", self->uri,
            self->requested, self->last, self->status < 0 ? -self->status : self->status, self->delivered,
            !self->ended ? "stopped" : self->result == PKGCTL_OK ? "ok" : "failed: ",
            self->ended && self->result != PKGCTL_OK && self->message ? self->message : "");
    g_mutex_unlock(&self->uri_lock);
    g_clear_pointer(&self->message, g_free);
}

/* Drops the bytes at hand and the request in flight, and starts one at `offset`. */
static void restart_at(GstPkgctlSrc *self, uint64_t offset) {
    end_request(self);
    g_byte_array_set_size(self->pending, 0);
    self->base = offset;
    start_request(self, offset);
}

/* Waits for the resolver's callbacks and runs them: FALSE when flushing, or after IDLE_SECONDS
 * without any (then `idle` says so). */
static gboolean pump(GstPkgctlSrc *self, gboolean *idle) {
    for (int second = 0; second < IDLE_SECONDS; second++) {
        struct pollfd ready[2] = {{.fd = pkgctl_resolver_fd(self->resolver), .events = POLLIN},
                                  {.fd = self->wake, .events = POLLIN}};
        if (poll(ready, 2, 1000) < 0 && errno != EINTR) break;
        if (g_atomic_int_get(&self->flushing)) return FALSE;
        if (pkgctl_resolver_dispatch(self->resolver) > 0) return TRUE;
    }
    *idle = TRUE;
    return FALSE;
}

/* Why the request in flight cannot give bytes, or NULL while it still may. */
static gchar *request_failure(GstPkgctlSrc *self) {
    if (self->status < 0)
        return g_strdup_printf("%s: a %d answer for other bytes than bytes=%" PRIu64 "-%" PRIu64, self->uri,
                               -self->status, self->requested, self->last);
    if (self->responded && self->status != 200 && self->status != 206)
        return g_strdup_printf("%s: answered %d", self->uri, self->status);
    if (self->ended && self->result != PKGCTL_OK)
        return g_strdup_printf("%s: %s", self->uri, self->message ? self->message : "failed");
    return NULL;
}

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
    restart_at(self, 0);
    gboolean idle = FALSE;
    while (!self->responded && !self->ended && pump(self, &idle)) {}
    gchar *failure = idle ? g_strdup_printf("%s: no answer within %d s", self->uri, IDLE_SECONDS) : request_failure(self);
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
    end_request(self);
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
        end_request(self);
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
    restart_at(self, offset);
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
        gchar *failure = request_failure(self);
        if (!failure && self->ended && self->status == 206 && self->size && received_end(self) < self->size) {
            end_request(self); /* its range is done: the next one goes on from there */
            start_request(self, received_end(self));
            continue;
        }
        if (!failure && self->ended) {
            if (!self->size && received_end(self) > offset) break;
            if (!self->size || offset >= self->size) return GST_FLOW_EOS;
            failure = g_strdup_printf("%s: the answer ended at byte %" PRIu64 " of %" PRIu64, self->uri,
                                      received_end(self), self->size);
        }
        consume_to(self, received_end(self)); /* the bytes at hand are the element's: the next ones may come */
        if (!failure && !pump(self, &idle)) {
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

static gboolean set_location(GstPkgctlSrc *self, const gchar *uri, GError **error) {
    if (GST_STATE(self) != GST_STATE_NULL && GST_STATE(self) != GST_STATE_READY) {
        g_set_error_literal(error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE, "the URI changes only in NULL or READY");
        return FALSE;
    }
    if (uri && !g_str_has_prefix(uri, "app://")) {
        g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_UNSUPPORTED_PROTOCOL, "not an app:// URI: %s", uri);
        return FALSE;
    }
    g_mutex_lock(&self->uri_lock);
    g_free(self->uri);
    self->uri = g_strdup(uri);
    g_mutex_unlock(&self->uri_lock);
    return TRUE;
}

static void gst_pkgctl_src_set_property(GObject *object, guint id, const GValue *value, GParamSpec *spec) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(object);
    GError *error = NULL;
    if (id != PROP_LOCATION) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
    } else if (!set_location(self, g_value_get_string(value), &error)) {
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
        g_param_spec_string("location", "Location", "The app:// URL to read", NULL,
                            G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(element_class, "pkgctl app:// source", "Source/Network",
                                          "Reads app:// URLs through pkgctl's resolver (package, overlay or origin)",
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

/* MARK: GstURIHandler */

static GstURIType uri_type(GType type) {
    (void)type;
    return GST_URI_SRC;
}

static const gchar *const *uri_protocols(GType type) {
    (void)type;
    static const gchar *const protocols[] = {"app", NULL};
    return protocols;
}

static gchar *uri_get(GstURIHandler *handler) {
    GstPkgctlSrc *self = GST_PKGCTL_SRC(handler);
    g_mutex_lock(&self->uri_lock);
    gchar *uri = g_strdup(self->uri);
    g_mutex_unlock(&self->uri_lock);
    return uri;
}

static gboolean uri_set(GstURIHandler *handler, const gchar *uri, GError **error) {
    return set_location(GST_PKGCTL_SRC(handler), uri, error);
}

static void uri_handler_init(gpointer iface, gpointer data) {
    (void)data;
    GstURIHandlerInterface *handler = iface;
    handler->get_type = uri_type;
    handler->get_protocols = uri_protocols;
    handler->get_uri = uri_get;
    handler->set_uri = uri_set;
}
