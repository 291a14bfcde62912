#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "pipe_body.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <string.h>
#include <unistd.h>

struct pipe_body {
    int descriptor;
    GInputStream *stream;
    /* Bytes waiting for room in the pipe: pending->data[start..len). */
    GByteArray *pending;
    size_t start;
    bool finishing;
    guint writable_watch;
    guint error_watch;
    struct held_bytes *held;
    /* NULL once finished: the task ended, nothing more is reported. */
    const struct pipe_body_owner *callbacks;
    void *owner;
};

static gboolean on_pipe_event(gint descriptor, GIOCondition condition, gpointer data);

static size_t queued(const struct pipe_body *body) { return body->pending->len - body->start; }

static void change_held(struct pipe_body *body, size_t before) {
    body->held->current = body->held->current - before + queued(body);
    if (body->held->current > body->held->peak) body->held->peak = body->held->current;
}

struct pipe_body *pipe_body_new(struct held_bytes *held, const struct pipe_body_owner *callbacks, void *owner) {
    int ends[2];
    if (!g_unix_open_pipe(ends, FD_CLOEXEC, NULL)) return NULL;
    struct pipe_body *body = g_new0(struct pipe_body, 1);
    body->descriptor = ends[1];
    fcntl(body->descriptor, F_SETFL, fcntl(body->descriptor, F_GETFL) | O_NONBLOCK);
    fcntl(body->descriptor, F_SETPIPE_SZ, 256 * 1024); /* fewer wake-ups; best effort */
    body->stream = g_unix_input_stream_new(ends[0], TRUE);
    body->pending = g_byte_array_new();
    body->held = held;
    body->callbacks = callbacks;
    body->owner = owner;
    body->error_watch = g_unix_fd_add(body->descriptor, G_IO_ERR | G_IO_HUP, on_pipe_event, body);
    return body;
}

GInputStream *pipe_body_take_stream(struct pipe_body *body) {
    GInputStream *stream = body->stream;
    body->stream = NULL;
    return stream;
}

/* Writes what the pipe takes now; the count, or -1 when the reader is gone. */
static ssize_t send_bytes(struct pipe_body *body, const guint8 *bytes, size_t length) {
    size_t offset = 0;
    while (offset < length) {
        ssize_t count = write(body->descriptor, bytes + offset, length - offset);
        if (count > 0) {
            offset += (size_t)count;
        } else if (count < 0 && errno == EINTR) {
            continue;
        } else if (count < 0 && errno == EAGAIN) {
            break;
        } else {
            return -1;
        }
    }
    if (offset > 0 && body->callbacks) body->callbacks->consumed(body->owner, offset);
    return (ssize_t)offset;
}

static void close_body(struct pipe_body *body) {
    if (body->descriptor < 0) return;
    if (body->writable_watch) g_source_remove(body->writable_watch);
    if (body->error_watch) g_source_remove(body->error_watch);
    body->writable_watch = body->error_watch = 0;
    close(body->descriptor);
    body->descriptor = -1;
    size_t before = queued(body);
    g_byte_array_set_size(body->pending, 0);
    body->start = 0;
    change_held(body, before);
}

static void free_body(struct pipe_body *body) {
    close_body(body);
    if (body->stream) g_object_unref(body->stream);
    g_byte_array_unref(body->pending);
    g_free(body);
}

bool pipe_body_write(struct pipe_body *body, const void *bytes, size_t length) {
    if (body->descriptor < 0) return false;
    size_t before = queued(body);
    size_t written = 0;
    if (before == 0) {
        ssize_t count = send_bytes(body, bytes, length);
        if (count < 0) {
            close_body(body);
            return false;
        }
        written = (size_t)count;
    }
    g_byte_array_append(body->pending, (const guint8 *)bytes + written, (guint)(length - written));
    change_held(body, before);
    if (queued(body) > 0 && !body->writable_watch) {
        body->writable_watch = g_unix_fd_add(body->descriptor, G_IO_OUT, on_pipe_event, body);
    }
    return true;
}

void pipe_body_finish(struct pipe_body *body) {
    body->finishing = true;
    body->callbacks = NULL;
    body->owner = NULL;
    if (queued(body) == 0) free_body(body);
}

void pipe_body_abort(struct pipe_body *body) { free_body(body); }

/* The pipe broke: the owner aborts the writer, or a finished one frees itself. */
static void reader_gone(struct pipe_body *body) {
    close_body(body);
    if (body->callbacks) {
        body->callbacks->reader_gone(body->owner);
    } else {
        free_body(body);
    }
}

/* Room in the pipe: sends what waits. False when nothing is left to wait for. */
static gboolean drain(struct pipe_body *body) {
    size_t before = queued(body);
    ssize_t count = send_bytes(body, body->pending->data + body->start, before);
    if (count < 0) {
        reader_gone(body);
        return FALSE;
    }
    body->start += (size_t)count;
    change_held(body, before);
    if (queued(body) == 0) {
        g_byte_array_set_size(body->pending, 0);
        body->start = 0;
        body->writable_watch = 0; /* removed by returning FALSE */
        if (body->finishing) free_body(body);
        return FALSE;
    }
    if (body->start > 1 << 20) { /* drop what was sent, now and then */
        g_byte_array_remove_range(body->pending, 0, (guint)body->start);
        body->start = 0;
    }
    return TRUE;
}

static gboolean on_pipe_event(gint descriptor, GIOCondition condition, gpointer data) {
    (void)descriptor;
    struct pipe_body *body = data;
    if (condition & (G_IO_ERR | G_IO_HUP)) {
        reader_gone(body); /* removes this source too */
        return G_SOURCE_REMOVE;
    }
    return drain(body) ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}
