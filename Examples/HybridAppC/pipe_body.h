/*
 * The write end of a pipe whose read end WebKit consumes as a response body (a
 * GUnixInputStream): a body streams to the page without ever being held whole.
 * Main thread only.
 *
 * Bytes the pipe cannot take yet wait in the writer while a GLib watch waits for
 * room; bytes are reported to the owner as they enter the pipe, so the resolver's
 * window bounds what waits. When WebKit drops the stream (the page went away) the
 * pipe reports an error and the owner hears of it once.
 */
#ifndef HYBRID_APP_PIPE_BODY_H
#define HYBRID_APP_PIPE_BODY_H

#include <gio/gio.h>
#include <stdbool.h>

/* The response-body bytes the app holds itself, queued for full pipes: now and at peak. */
struct held_bytes {
    size_t current;
    size_t peak;
};

/* What a writer tells its owner (a task) while it has one. */
struct pipe_body_owner {
    void (*consumed)(void *owner, size_t length);
    /* The pipe broke; the owner calls pipe_body_abort(). */
    void (*reader_gone)(void *owner);
};

struct pipe_body;

/* A new pipe; NULL with errno set when none can be made. `held` counts what it queues. */
struct pipe_body *pipe_body_new(struct held_bytes *held, const struct pipe_body_owner *callbacks, void *owner);

/* The read end as a stream, with its reference (once): WebKit's response takes it,
 * and the read end closes when WebKit drops it. */
GInputStream *pipe_body_take_stream(struct pipe_body *body);

/* Queues `length` bytes for the page. False when the page dropped the stream: the
 * writer is closed and its owner must abort it. */
bool pipe_body_write(struct pipe_body *body, const void *bytes, size_t length);

/* Ends the body once everything queued is in the pipe (EOF for the page); the owner lets
 * go of `body`, which frees itself when it has drained. */
void pipe_body_finish(struct pipe_body *body);

/* Ends the body now and frees it. A pipe cannot carry an error: the page sees the body
 * end early, as after a cut HTTP connection without a length check. */
void pipe_body_abort(struct pipe_body *body);

#endif
