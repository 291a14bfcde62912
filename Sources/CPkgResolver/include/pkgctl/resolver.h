/*
 * pkgctl/resolver.h: the pkgctl resolver for hosts written in C (and anything that
 * calls C: Python's ctypes, Rust's extern "C").
 *
 * A resolver answers a web view's requests for an offline package store: from the
 * active version of the package whose route matches, else from the https origin,
 * written through to disk for next time. Link with `pkg-config --cflags --libs
 * pkgctl-resolver`. ABI version 0 (SONAME libpkgctl-resolver.so.0).
 *
 * THREADING. Every callback of every task runs on the thread that calls
 * pkgctl_resolver_dispatch(), never on the resolver's own threads. When callbacks
 * are waiting, the descriptor from pkgctl_resolver_fd() becomes readable; a main
 * loop watches it and calls dispatch, e.g. with GLib:
 *
 *     GSource *s = g_unix_fd_source_new(pkgctl_resolver_fd(r), G_IO_IN);
 *     g_source_set_callback(s, (GSourceFunc)on_ready, r, NULL);   // on_ready: dispatch, return TRUE
 *     g_source_attach(s, NULL);
 *
 * STOPPING. After pkgctl_task_stop() returns on the dispatching thread (inside a
 * callback too), no callback of that task runs again. From any other thread it is
 * safe as well: it waits for a callback of the task that is running at that moment
 * to return, and none starts after it. Either way the task's `user` pointer is not
 * used after stop returns.
 *
 * OWNERSHIP. Strings and arrays passed in are copied before the call returns.
 * Pointers passed to callbacks are valid only during the callback.
 */
#ifndef PKGCTL_RESOLVER_H
#define PKGCTL_RESOLVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A resolver over one store; opaque. */
typedef struct pkgctl_resolver pkgctl_resolver;
/** One request in flight; opaque. Released by pkgctl_task_stop(), exactly once. */
typedef struct pkgctl_task pkgctl_task;

/** One header field. */
typedef struct pkgctl_header {
    const char *name;
    const char *value;
} pkgctl_header;

/** How a task ended, in its `end` callback. */
enum pkgctl_result {
    PKGCTL_OK = 0,             /**< The body is complete. */
    PKGCTL_ERR_INVALID = 1,    /**< The request was refused (a bad URL or path). */
    PKGCTL_ERR_TRANSFER = 2,   /**< The origin could not be reached, or the transfer was cut. */
    PKGCTL_ERR_OFFLINE = 3,    /**< Offline, and no installed package or cached answer has it. */
    PKGCTL_ERR_OTHER = 4       /**< A read error or anything else; the message says what. */
};

/** Settings of pkgctl_resolver_create(). Zero it, then set `struct_size` and what you need. */
typedef struct pkgctl_resolver_options {
    /** sizeof(pkgctl_resolver_options), so later versions can add fields. Required. */
    uint32_t struct_size;
    /** The store's root directory (as `pkgctl update --root`). Required. */
    const char *store_root;
    /** Base URL replacing https://HOST for origin fallbacks (e.g. "http://127.0.0.1:8080"); NULL: https://HOST. */
    const char *upstream;
    /** PEM file of CA certificates for the origin's TLS; NULL: the system's. */
    const char *ca_file;
    /** Nonzero: never ask the origin; what no package or cached answer has ends with PKGCTL_ERR_OFFLINE. */
    int32_t offline;
    /** Nonzero: body bytes count as consumed only when reported with pkgctl_task_consumed(). */
    int32_t explicit_consumption;
    /** Body bytes a task may have delivered and not consumed before the source is held back; 0: 1 MiB. */
    uint64_t window;
} pkgctl_resolver_options;

/** A task's callbacks. Each runs on the dispatching thread; any may be NULL. */
typedef struct pkgctl_task_callbacks {
    /** The response head, once (not at all when the task fails first). */
    void (*response)(void *user, int32_t status, const pkgctl_header *headers, size_t header_count);
    /** A chunk of the body; `bytes` is valid only during the call. */
    void (*data)(void *user, const void *bytes, size_t length);
    /** The end, exactly once: PKGCTL_OK, or an error with a one-line message. Call pkgctl_task_stop() afterwards. */
    void (*end)(void *user, int32_t result, const char *message);
} pkgctl_task_callbacks;

/** The resolver's counters since it was created. */
typedef struct pkgctl_resolver_counters {
    uint64_t tasks_started;
    uint64_t tasks_succeeded;
    uint64_t tasks_failed;
    /** Stopped before their end was delivered. */
    uint64_t tasks_stopped;
    /** Body bytes handed to data callbacks. */
    uint64_t body_bytes;
    /** Callbacks run by pkgctl_resolver_dispatch(). */
    uint64_t callbacks;
} pkgctl_resolver_counters;

/**
 * Creates a resolver. Returns NULL on failure and, when `error` is not NULL, writes a
 * one-line message of at most `error_size` bytes (NUL included) there.
 */
pkgctl_resolver *pkgctl_resolver_create(const pkgctl_resolver_options *options, char *error, size_t error_size);

/**
 * Stops every task still running, waits for the resolver's threads, and frees it. Call it
 * on the dispatching thread, after the last pkgctl_task_stop(); callbacks still queued are
 * dropped. Task handles not yet stopped become invalid.
 */
void pkgctl_resolver_destroy(pkgctl_resolver *resolver);

/** A descriptor (an eventfd) that is readable while callbacks are waiting for dispatch. Owned by the resolver. */
int pkgctl_resolver_fd(const pkgctl_resolver *resolver);

/** Runs the callbacks waiting now, on the calling thread, in order; returns how many ran. */
size_t pkgctl_resolver_dispatch(pkgctl_resolver *resolver);

/**
 * Starts a request: `method` ("GET"), an absolute `url` ("app://www.example.com/app/index.html"),
 * `header_count` request headers, and a body of `body_length` bytes (may be NULL when 0). The
 * callbacks receive `user`. Returns the task, to be stopped exactly once; NULL only when an
 * argument is NULL.
 */
pkgctl_task *pkgctl_task_start(pkgctl_resolver *resolver, const char *method, const char *url,
                               const pkgctl_header *headers, size_t header_count,
                               const void *body, size_t body_length,
                               const pkgctl_task_callbacks *callbacks, void *user);

/** Reports `length` body bytes of the task used (with `explicit_consumption`); safe from any thread. */
void pkgctl_task_consumed(pkgctl_task *task, size_t length);

/**
 * Stops the task if it has not ended, and releases the handle: call it exactly once for every
 * task, after its end or to cancel it. See STOPPING above.
 */
void pkgctl_task_stop(pkgctl_task *task);

/** Fills `counters`. */
void pkgctl_resolver_get_counters(const pkgctl_resolver *resolver, pkgctl_resolver_counters *counters);

#ifdef __cplusplus
}
#endif

#endif
