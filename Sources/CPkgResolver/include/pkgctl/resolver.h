/*
 * pkgctl/resolver.h: the pkgctl resolver for hosts written in C (and anything that
 * calls C: Python's ctypes, Rust's extern "C").
 *
 * A resolver answers a web view's requests for an offline package store: from the
 * active version of the package whose route matches, else from the https origin,
 * written through to disk for next time. Link with `pkg-config --cflags --libs
 * pkgctl-resolver`. ABI version 0 (SONAME libpkgctl-resolver.so.0), extended compatibly: the
 * functions marked "Since 0.1" are in the version node PKGCTL_RESOLVER_0.1 (resolver.map).
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
 *
 * SIZED STRUCTS. A struct that starts with `uint32_t struct_size` may gain fields at its end in
 * a later version; the caller zeroes it and sets struct_size to sizeof as its header declares.
 * The library reads (options) or writes (results) only the fields that struct_size covers, so
 * a host built against an older header keeps working with a newer library, and the reverse.
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

/**
 * Settings of pkgctl_resolver_create(). Zero it, then set `struct_size` and what you need.
 *
 * `struct_size` (see SIZED STRUCTS): at least the size of the fields below, which ABI 0 had
 * from the start (through `window`: 48 bytes on 64-bit Linux); a smaller one is refused with
 * a one-line message. Fields a later version adds take their defaults when a smaller
 * struct_size (an older host) leaves them out. A struct_size larger than this library knows
 * (a host built against a newer header) is accepted when the bytes past the fields it knows
 * are all zero, the defaults, and refused otherwise: a nonzero one is an option this library
 * cannot honour, which must not be ignored silently (the rule of Linux's copy_struct_from_user).
 * A struct_size over 4096 is refused as no size of this struct.
 */
typedef struct pkgctl_resolver_options {
    /** sizeof(pkgctl_resolver_options), so later versions can add fields. Required. */
    uint32_t struct_size;
    /** The store's root directory (as `pkgctl update --root`). Required, and it must exist: create
     *  refuses one that does not, naming it, and makes nothing (only `pkgctl update` creates a store). */
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

/** The resolver's counters since it was created, as ABI 0 has them (pkgctl_resolver_get_counters()). */
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

/**
 * Reports `length` body bytes of the task used (with `explicit_consumption`); safe from any
 * thread, and inside the task's own callbacks. From another thread it waits while a callback of
 * the task runs on the dispatching thread: do not call it holding anything such a callback may
 * wait for (a lock the callback takes before pkgctl_task_stop(), say), or report consumption on
 * the dispatching thread, as the example hosts do.
 */
void pkgctl_task_consumed(pkgctl_task *task, size_t length);

/**
 * Stops the task if it has not ended, and releases the handle: call it exactly once for every
 * task, after its end or to cancel it. See STOPPING above.
 */
void pkgctl_task_stop(pkgctl_task *task);

/** Fills `counters`. The ABI-0 original, kept as it is: new hosts call pkgctl_resolver_counters_get(). */
void pkgctl_resolver_get_counters(const pkgctl_resolver *resolver, pkgctl_resolver_counters *counters);

/* ---- Since 0.1 (version node PKGCTL_RESOLVER_0.1) ---- */

/**
 * Where a request would be answered from (pkgctl_request_plan.source). Values start at 1: a
 * zeroed field the library did not write reads 0. A later version may add values.
 */
enum pkgctl_source {
    PKGCTL_SOURCE_PACKAGE = 1, /**< A file of the active version of the package whose route matches. */
    PKGCTL_SOURCE_OVERLAY = 2, /**< The overlay: an origin answer written through to disk before. */
    PKGCTL_SOURCE_ORIGIN = 3,  /**< The origin (a miss; html, script and style GETs are written through). */
    PKGCTL_SOURCE_OFFLINE = 4, /**< A miss while offline: the task would end with PKGCTL_ERR_OFFLINE. */
    PKGCTL_SOURCE_REFUSED = 5  /**< A refused request (a bad path or query): it would end with PKGCTL_ERR_INVALID. */
};

/**
 * What kind of resource a request asks for (pkgctl_request_plan.resource_class), by its Accept
 * header and its path's extension: Accept with text/html → html; .js/.mjs/.cjs → script; .css
 * or Accept with text/css → style; Accept with image/ or an image extension → image; else other.
 * Values start at 1; a later version may add values.
 */
enum pkgctl_resource_class {
    PKGCTL_CLASS_HTML = 1,
    PKGCTL_CLASS_SCRIPT = 2,
    PKGCTL_CLASS_STYLE = 3,
    PKGCTL_CLASS_IMAGE = 4,
    PKGCTL_CLASS_OTHER = 5
};

/**
 * What pkgctl_resolver_plan() says of a request. Zero it and set `struct_size` (see SIZED
 * STRUCTS); the library writes the fields it knows that struct_size covers.
 *
 * The class and the source are enums, read with == and switch, with a name from the library
 * (pkgctl_resource_class_name(), pkgctl_source_name()) rather than strings in the struct: a
 * host compares numbers, not text, and still gets a word for its log when a newer library
 * returns a value its header does not list. They are int32_t, not the enum types, so their
 * size does not depend on the compiler.
 */
typedef struct pkgctl_request_plan {
    /** sizeof(pkgctl_request_plan): at least 12, the fields below. Required. */
    uint32_t struct_size;
    /** An enum pkgctl_source. */
    int32_t source;
    /** An enum pkgctl_resource_class. */
    int32_t resource_class;
} pkgctl_request_plan;

/**
 * Says, without starting a task or fetching anything, where the request `method` `url` with
 * `header_count` `headers` (its Accept counts) would be answered from and what class it is.
 * A refused request or an offline miss is a plan too (PKGCTL_SOURCE_REFUSED, _OFFLINE). Returns
 * PKGCTL_OK; PKGCTL_ERR_INVALID, writing nothing, when an argument is NULL or plan->struct_size
 * is under 12. The answer holds for the store as it is now: an update or a write-through
 * may change it before a task starts. Since 0.1.
 */
int32_t pkgctl_resolver_plan(const pkgctl_resolver *resolver, const char *method, const char *url,
                             const pkgctl_header *headers, size_t header_count, pkgctl_request_plan *plan);

/** The word for an enum pkgctl_source ("package", "overlay", "origin", "offline", "refused"); "unknown" for another value. A static string. Since 0.1. */
const char *pkgctl_source_name(int32_t source);

/** The word for an enum pkgctl_resource_class ("html", "script", "style", "image", "other"); "unknown" for another value. A static string. Since 0.1. */
const char *pkgctl_resource_class_name(int32_t resource_class);

/** The resolver's counters since it was created (pkgctl_resolver_counters_get()). Since 0.1. */
typedef struct pkgctl_counters {
    /** sizeof(pkgctl_counters); see SIZED STRUCTS. Required. */
    uint32_t struct_size;
    uint64_t tasks_started;
    uint64_t tasks_succeeded;
    uint64_t tasks_failed;
    /** Stopped before their end was delivered. */
    uint64_t tasks_stopped;
    /** Body bytes handed to data callbacks. */
    uint64_t body_bytes;
    /** Callbacks run by pkgctl_resolver_dispatch(). */
    uint64_t callbacks;
} pkgctl_counters;

/**
 * Fills the fields of `counters` that lie whole within counters->struct_size, and nothing past
 * them. Returns the offset where the last field written ends (sizeof(pkgctl_counters) when the
 * caller's struct and the library's agree), so a host built against a newer header knows which
 * fields an older library filled; 0, writing nothing, when an argument is NULL or struct_size
 * covers no field. Since 0.1.
 */
size_t pkgctl_resolver_counters_get(const pkgctl_resolver *resolver, pkgctl_counters *counters);

/**
 * The host's word on the launch under way of the page at `url` (the URL it navigated to): it failed
 * in a way only the host sees (a page error, a render deadline missed), in `detail`'s words (at
 * most 200 bytes kept). When the store runs a trial by launches for the version serving `url`
 * (`pkgctl update --confirm-after-launches`), the launch counts as bad. Optional: without it, a
 * launch is judged on its requests alone. Returns 1 when a launch took it; 0, changing nothing,
 * when no version on trial by launches serves `url`, none of its launches is under way, or an
 * argument is NULL. Any thread. Since 0.2.
 */
int32_t pkgctl_resolver_report_launch_problem(pkgctl_resolver *resolver, const char *url, const char *detail);

#ifdef __cplusplus
}
#endif

#endif
