/*
 * pkgctlsrc's requests: one resolver task at a time for CHUNK bytes of the file, its callbacks
 * (run on the thread that dispatches: the one in create() or start()), and the wait for them.
 */
#include "pkgctl_src_private.h"

#include "response_range.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>

/* Bytes one request asks for. A request left behind by a seek is cut by the resolver, but what the
 * socket buffers took has left the origin already (megabytes on a fast link): a bounded range
 * bounds that too. */
#define CHUNK (512 * 1024)

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

/* MARK: requests (pkgctl_src_private.h says what each does) */

void gst_pkgctl_src_start_request(GstPkgctlSrc *self, uint64_t offset) {
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

void gst_pkgctl_src_end_request(GstPkgctlSrc *self) {
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

void gst_pkgctl_src_restart_at(GstPkgctlSrc *self, uint64_t offset) {
    gst_pkgctl_src_end_request(self);
    g_byte_array_set_size(self->pending, 0);
    self->base = offset;
    gst_pkgctl_src_start_request(self, offset);
}

gboolean gst_pkgctl_src_pump(GstPkgctlSrc *self, gboolean *idle) {
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

gchar *gst_pkgctl_src_request_failure(GstPkgctlSrc *self) {
    if (self->status < 0)
        return g_strdup_printf("%s: a %d answer for other bytes than bytes=%" PRIu64 "-%" PRIu64, self->uri,
                               -self->status, self->requested, self->last);
    if (self->responded && self->status != 200 && self->status != 206)
        return g_strdup_printf("%s: answered %d", self->uri, self->status);
    if (self->ended && self->result != PKGCTL_OK)
        return g_strdup_printf("%s: %s", self->uri, self->message ? self->message : "failed");
    return NULL;
}
