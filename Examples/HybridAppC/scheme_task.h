/*
 * One app:// request of WebKit as a resolver task. Its callbacks run on the GLib main
 * thread (pkgctl_resolver_dispatch), so every WebKit call here happens there, and a stop
 * made there silences the task at once.
 *
 * The response head becomes finish_with_response with a pipe as its body stream; body
 * bytes go into the pipe and count as consumed once they are in it. WebKit has no stop
 * callback: when it drops the stream (the page went away) the pipe breaks and the task
 * is stopped.
 */
#ifndef HYBRID_APP_SCHEME_TASK_H
#define HYBRID_APP_SCHEME_TASK_H

#include "pipe_body.h"

#include <pkgctl/resolver.h>
#include <webkit2/webkit2.h>

struct scheme_task {
    /* The callbacks' `user`: an id, not a pointer, so a callback after the stop (which the
     * ABI rules out) finds no task and is counted instead of reaching freed memory. */
    guint id;
    pkgctl_task *handle;
    /* Held until it is answered: WebKit's request keeps the body stream, so holding it
     * longer would keep a dropped stream's pipe open and hide that the page left. */
    WebKitURISchemeRequest *request;
    char *method;
    /* As the log shows it. */
    char *shown_url;
    /* What the log says of it: resource class and where it comes from, by the resolver's plan
     * (pkgctl_resolver_plan(); static strings of the library). */
    const char *resource_class;
    const char *source;
    /* The response status (0 before the head) and the body bytes so far. */
    int status;
    guint64 bytes;
    struct pipe_body *body;
    /* A stylesheet (class "style"): scripts requested after it keep their end until WebKit
     * has all of it, which it tells by dropping the body stream (`style_watched` once
     * watched). */
    bool style, style_watched;
    /* A script whose body is all in the pipe but whose end waits for such a stylesheet. */
    bool end_held;
};

/* The callbacks every task is started with. */
extern const pkgctl_task_callbacks scheme_task_callbacks;

/* Answers `request` with an error (a refused request, a failure before the head). */
void scheme_task_finish_error(WebKitURISchemeRequest *request, const char *message);

/* Frees `task`: closes its body early and lets go of an unanswered request. */
void scheme_task_free(struct scheme_task *task);

/* Ends a script whose end was held (no stylesheet before it is pending any more): closes
 * its pipe, so the page sees the end of the body, and ends the task. */
void scheme_task_release_end(struct scheme_task *task);

/* What scheme_task.c asks of the handler. */
/* The live task `user` names; NULL (and a late callback counted) when there is none. */
struct scheme_task *scheme_handler_find(void *user);
/* The page left `task`: stops it, logs `note`, frees it. */
void scheme_handler_stop(struct scheme_task *task, const char *note);
/* The resolver's end of `task` (`failure` NULL when it finished): stops its handle, logs, frees it. */
void scheme_handler_ended(struct scheme_task *task, const char *failure);
struct held_bytes *scheme_handler_held(void);
/* Whether a stylesheet requested before task `id` is not yet all in WebKit. */
bool scheme_handler_style_pending_before(guint id);
/* WebKit has all of stylesheet task `id` (or it never will): releases the scripts it held. */
void scheme_handler_style_settled(guint id);

#endif
