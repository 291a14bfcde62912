#include "scheme_task.h"

#include "log.h"

#include <errno.h>
#include <string.h>

static void on_consumed(void *owner, size_t length) {
    struct scheme_task *task = owner;
    pkgctl_task_consumed(task->handle, length);
}

static void on_reader_gone(void *owner) { scheme_handler_stop(owner, "page dropped the stream"); }

static const struct pipe_body_owner body_owner = {on_consumed, on_reader_gone};

static const char *header(const pkgctl_header *headers, size_t count, const char *name) {
    for (size_t index = 0; index < count; index++) {
        if (g_ascii_strcasecmp(headers[index].name, name) == 0) return headers[index].value;
    }
    return NULL;
}

static void release_request(struct scheme_task *task) {
    g_clear_object(&task->request);
}

void scheme_task_finish_error(WebKitURISchemeRequest *request, const char *message) {
    GError *error = g_error_new_literal(g_quark_from_static_string("hybrid-app-resolver"), 1, message);
    webkit_uri_scheme_request_finish_error(request, error);
    g_error_free(error);
}

/* `location` (valid UTF-8) as a JavaScript string's characters: what is not plainly safe as \u{…}. */
static void append_script_string(GString *script, const char *location) {
    for (const char *at = location; *at; at = g_utf8_next_char(at)) {
        gunichar character = g_utf8_get_char(at);
        if (character < 0x80 && (g_ascii_isalnum((char)character) || strchr("/?=&.-_:%#", (int)character))) {
            g_string_append_c(script, (char)character);
        } else {
            g_string_append_printf(script, "\\u{%x}", character);
        }
    }
}

static void on_style_stream_gone(gpointer id, GObject *stream) {
    (void)stream;
    scheme_handler_style_settled(GPOINTER_TO_UINT(id));
}

/* A stylesheet's body stream goes to WebKit, which drops it once it has read the whole body
 * (or the page left): then the stylesheet no longer holds back the scripts after it. */
static void watch_style_stream(struct scheme_task *task, GInputStream *stream) {
    if (!task->style) return;
    g_object_weak_ref(G_OBJECT(stream), on_style_stream_gone, GUINT_TO_POINTER(task->id));
    task->style_watched = true;
}

/* WebKitGTK does not follow a 3xx that a custom scheme answers (2.50: "Frame load
 * interrupted", and nothing loads), so the redirect becomes a page that replaces itself
 * with `location`: the same for a navigation, and no history entry. */
static void answer_redirect(struct scheme_task *task, const char *location) {
    char *html = g_markup_escape_text(location, -1);
    GString *page = g_string_new(NULL);
    g_string_append_printf(page, "<!doctype html><meta http-equiv=\"refresh\" content=\"0; url=%s\">"
                                 "<script>location.replace(\"", html);
    append_script_string(page, location);
    g_string_append(page, "\")</script>");
    g_free(html);
    gsize length = page->len;
    GInputStream *stream = g_memory_input_stream_new_from_data(g_string_free(page, FALSE), (gssize)length, g_free);
    WebKitURISchemeResponse *answer = webkit_uri_scheme_response_new(stream, (gint64)length);
    webkit_uri_scheme_response_set_status(answer, 200, NULL);
    webkit_uri_scheme_response_set_content_type(answer, "text/html; charset=utf-8");
    watch_style_stream(task, stream);
    webkit_uri_scheme_request_finish_with_response(task->request, answer);
    g_object_unref(answer);
    g_object_unref(stream);
    release_request(task);
}

static void on_response(void *user, int32_t status, const pkgctl_header *headers, size_t count) {
    struct scheme_task *task = scheme_handler_find(user);
    if (!task || !task->request) return;
    task->status = status;
    /* Only the package's own folder redirect (a path on this host, by the task's plan); an
     * origin's 3xx goes to WebKit as it came, and a `javascript:` location is never run. */
    const char *location = header(headers, count, "Location");
    if (status == 301 && strcmp(task->source, "package") == 0 && location && location[0] == '/' && location[1] != '/'
        && g_utf8_validate(location, -1, NULL)) {
        answer_redirect(task, location);
        return;
    }
    task->body = pipe_body_new(scheme_handler_held(), &body_owner, task);
    if (!task->body) {
        char *message = g_strdup_printf("pipe: %s", g_strerror(errno));
        scheme_task_finish_error(task->request, message);
        release_request(task);
        scheme_handler_stop(task, message);
        g_free(message);
        return;
    }
    GInputStream *stream = pipe_body_take_stream(task->body);
    /* HEAD, 204 and 304 answers have no body, whatever Content-Length says. */
    bool has_body = strcmp(task->method, "HEAD") != 0 && status != 204 && status != 304;
    const char *length = header(headers, count, "Content-Length");
    WebKitURISchemeResponse *answer =
        webkit_uri_scheme_response_new(stream, has_body ? (length ? g_ascii_strtoll(length, NULL, 10) : -1) : 0);
    webkit_uri_scheme_response_set_status(answer, (guint)status, NULL);
    SoupMessageHeaders *fields = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE);
    for (size_t index = 0; index < count; index++) {
        soup_message_headers_append(fields, headers[index].name, headers[index].value);
    }
    const char *type = header(headers, count, "Content-Type");
    if (type) webkit_uri_scheme_response_set_content_type(answer, type);
    webkit_uri_scheme_response_set_http_headers(answer, fields); /* takes the headers */
    watch_style_stream(task, stream);
    webkit_uri_scheme_request_finish_with_response(task->request, answer);
    g_object_unref(answer);
    g_object_unref(stream); /* WebKit holds it now */
    release_request(task);
}

static void on_data(void *user, const void *bytes, size_t length) {
    struct scheme_task *task = scheme_handler_find(user);
    if (!task) return;
    task->bytes += length;
    if (task->body && !pipe_body_write(task->body, bytes, length)) scheme_handler_stop(task, "page dropped the stream");
}

static void on_end(void *user, int32_t result, const char *message) {
    struct scheme_task *task = scheme_handler_find(user);
    if (!task) return;
    if (result == PKGCTL_OK) {
        /* WebKitGTK runs a deferred script as soon as its body is complete, without waiting
         * for the stylesheets before it, as HTML requires ("a style sheet that is blocking
         * scripts"; HTMLScriptRunner::executeScriptsWaitingForParsing checks only that the
         * script is loaded). So a script's end waits until every stylesheet requested before
         * it is all in WebKit, which then finishes the stylesheet first. */
        if (task->body && strcmp(task->resource_class, "script") == 0 && scheme_handler_style_pending_before(task->id)) {
            task->end_held = true;
            return;
        }
        scheme_task_release_end(task);
        return;
    }
    const char *failure = message ? message : "failed";
    if (task->body) {
        pipe_body_abort(task->body); /* the head is out: all that is left is to end the body early */
        task->body = NULL;
    } else if (task->request) {
        scheme_task_finish_error(task->request, failure);
        release_request(task);
    }
    scheme_handler_ended(task, failure);
}

const pkgctl_task_callbacks scheme_task_callbacks = {on_response, on_data, on_end};

void scheme_task_release_end(struct scheme_task *task) {
    task->end_held = false;
    if (task->body) pipe_body_finish(task->body);
    task->body = NULL;
    scheme_handler_ended(task, NULL);
}

void scheme_task_free(struct scheme_task *task) {
    /* A stylesheet whose stream never reached WebKit holds back nothing any more. */
    if (task->style && !task->style_watched) scheme_handler_style_settled(task->id);
    if (task->body) pipe_body_abort(task->body);
    release_request(task);
    g_free(task->method);
    g_free(task->shown_url);
    g_free(task);
}
