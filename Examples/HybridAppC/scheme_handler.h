/*
 * Answers one custom scheme of a WebKit web context from the pkgctl resolver: each
 * request WebKit hands over becomes a resolver task (scheme_task.h) with explicit
 * consumption and a 512 KiB window, its callbacks run on the GLib main loop by
 * pkgctl_resolver_dispatch(). One per app; main thread only, like WebKit itself.
 */
#ifndef HYBRID_APP_SCHEME_HANDLER_H
#define HYBRID_APP_SCHEME_HANDLER_H

#include <pkgctl/resolver.h>
#include <stdbool.h>
#include <webkit2/webkit2.h>

/* Body bytes a task may have queued for WebKit before the resolver holds back its source. */
#define SCHEME_HANDLER_WINDOW (512 * 1024)

/* What the app has seen, for its exit line and its tests. */
struct scheme_counts {
    unsigned started, finished, failed, stopped;
    /* Callbacks that reached a task after the app stopped it: must stay 0. */
    unsigned late;
    /* Tasks started and not yet ended or stopped. */
    unsigned live;
    /* The most body bytes the app queued for full pipes at once. */
    size_t peak_held;
};

/* A resolver for the store with the app's flow control, its fd dispatched on the default
 * main loop; NULL after logging why. */
pkgctl_resolver *scheme_handler_create_resolver(const char *root, const char *upstream, const char *ca_file,
                                                bool offline);

/* Registers `scheme` on `context` as secure (pages on it are a secure context) and CORS-enabled. */
void scheme_handler_register(WebKitWebContext *context, const char *scheme, pkgctl_resolver *resolver);

struct scheme_counts scheme_handler_counts(void);

/* Logs the tasks still running (at most `limit`), e.g. at exit. */
void scheme_handler_log_live(unsigned limit);

/* At exit: stops the tasks still running and destroys the resolver. */
void scheme_handler_close(void);

#endif
