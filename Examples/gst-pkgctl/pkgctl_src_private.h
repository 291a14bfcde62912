/*
 * pkgctlsrc's instance, shared by its three files: pkgctl_src.c (the GstBaseSrc: start, reads,
 * seeks, flushes), pkgctl_src_request.c (its requests) and pkgctl_src_uri.c (its location and
 * GstURIHandler).
 */
#ifndef GST_PKGCTL_SRC_PRIVATE_H
#define GST_PKGCTL_SRC_PRIVATE_H

#include "pkgctl_src.h"

#include <pkgctl/resolver.h>
#include <stdint.h>

/* Seconds a request may go without any callback before the read fails. */
#define IDLE_SECONDS 30

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

/* pkgctl_src_request.c */

/** Starts the request for the bytes from `offset` (a bounded range); they append to the bytes at hand. */
void gst_pkgctl_src_start_request(GstPkgctlSrc *self, uint64_t offset);

/** Stops the request in flight, if any, and logs it (one line per request); the bytes at hand stay. */
void gst_pkgctl_src_end_request(GstPkgctlSrc *self);

/** Drops the bytes at hand and the request in flight, and starts one at `offset`. */
void gst_pkgctl_src_restart_at(GstPkgctlSrc *self, uint64_t offset);

/** Waits for the resolver's callbacks and runs them: FALSE when flushing, or after IDLE_SECONDS
 *  without any (then `idle` is set). */
gboolean gst_pkgctl_src_pump(GstPkgctlSrc *self, gboolean *idle);

/** Why the request in flight cannot give bytes (to be freed), or NULL while it still may. */
gchar *gst_pkgctl_src_request_failure(GstPkgctlSrc *self);

/* pkgctl_src_uri.c */

/** Sets the URL to read (NULL: none); only in NULL or READY, and only of a scheme the element reads. */
gboolean gst_pkgctl_src_set_location(GstPkgctlSrc *self, const gchar *uri, GError **error);

/** Fills the GstURIHandler interface (G_IMPLEMENT_INTERFACE). */
void gst_pkgctl_src_uri_handler_init(gpointer iface, gpointer data);

#endif
