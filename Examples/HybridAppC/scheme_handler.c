#include "scheme_handler.h"

#include "log.h"
#include "scheme_task.h"

#include <glib-unix.h>
#include <string.h>

/* Request bodies larger than this are refused (they are read into memory). */
#define MAXIMUM_REQUEST_BODY (16 << 20)

static struct {
    pkgctl_resolver *resolver;
    guint resolver_source;
    /* Live tasks by id. */
    GHashTable *live;
    guint last_id;
    struct scheme_counts counts;
    struct held_bytes held;
    /* Stylesheet tasks (by id) whose body WebKit does not have whole yet. */
    GHashTable *pending_styles;
    /* Set at exit: nothing is released any more. */
    bool closing;
} handler;

static gint by_id(gconstpointer a, gconstpointer b) {
    guint left = ((const struct scheme_task *)a)->id, right = ((const struct scheme_task *)b)->id;
    return left < right ? -1 : left > right;
}

/* The resolver's fd turned readable: callbacks wait, run them here on the main loop. */
static gboolean on_resolver_ready(gint descriptor, GIOCondition condition, gpointer resolver) {
    (void)descriptor, (void)condition;
    pkgctl_resolver_dispatch(resolver);
    return G_SOURCE_CONTINUE;
}

pkgctl_resolver *scheme_handler_create_resolver(const char *root, const char *upstream, const char *ca_file,
                                                bool offline) {
    pkgctl_resolver_options options = {0};
    options.struct_size = sizeof options;
    options.store_root = root;
    options.upstream = upstream;
    options.ca_file = ca_file;
    options.offline = offline;
    options.explicit_consumption = 1; /* bytes count once they are in a pipe */
    options.window = SCHEME_HANDLER_WINDOW;
    char error[512];
    pkgctl_resolver *resolver = pkgctl_resolver_create(&options, error, sizeof error);
    if (!resolver) {
        log_line("%s", error);
        return NULL;
    }
    /* At idle priority, as WebKit's own work comes first: input, drawing, and reading the
     * body pipes, which makes room for the bytes the callbacks bring. */
    handler.resolver_source = g_unix_fd_add_full(G_PRIORITY_DEFAULT_IDLE, pkgctl_resolver_fd(resolver), G_IO_IN,
                                                 on_resolver_ready, resolver, NULL);
    return resolver;
}

/* `GET app://www.example.com/app/index.html 200 html package 614B (note)`. */
static void log_task(const struct scheme_task *task, bool ended, const char *note) {
    char status[16] = "-", bytes[32] = "-";
    if (ended) {
        snprintf(status, sizeof status, "%d", task->status);
        snprintf(bytes, sizeof bytes, "%" G_GUINT64_FORMAT "B", task->bytes);
    }
    log_line("%s %s %s %s %s %s%s%s%s", task->method, task->shown_url, status, task->resource_class, task->source,
             bytes, note ? " (" : "", note ? note : "", note ? ")" : "");
}

static void refuse(WebKitURISchemeRequest *request, const char *message) {
    log_line("%s", message);
    scheme_task_finish_error(request, message);
}

/* The request body (string bodies; WebKit crashes on Blob and FormData ones), read whole;
 * NULL with `*error` set on a read error or one too large. */
static GByteArray *read_body(WebKitURISchemeRequest *request, char **error) {
    GByteArray *body = g_byte_array_new();
    GInputStream *stream = webkit_uri_scheme_request_get_http_body(request);
    if (!stream) return body;
    guint8 chunk[64 * 1024];
    for (;;) {
        GError *failure = NULL;
        gssize count = g_input_stream_read(stream, chunk, sizeof chunk, NULL, &failure);
        if (failure) {
            *error = g_strdup_printf("request body: %s", failure->message);
            g_error_free(failure);
            break;
        }
        if (count <= 0) break;
        g_byte_array_append(body, chunk, (guint)count);
        if (body->len > MAXIMUM_REQUEST_BODY) {
            *error = g_strdup_printf("request body over %d bytes", MAXIMUM_REQUEST_BODY);
            break;
        }
    }
    g_object_unref(stream);
    if (*error) {
        g_byte_array_unref(body);
        return NULL;
    }
    return body;
}

/* The request's header fields, without Accept-Encoding: WebKit passes a custom-scheme body
 * to the page as it is, so a precompressed (.br/.gz) answer must never be chosen. The
 * strings are WebKit's, valid during this call. */
static GArray *request_headers(WebKitURISchemeRequest *request) {
    GArray *fields = g_array_new(FALSE, FALSE, sizeof(pkgctl_header));
    SoupMessageHeaders *headers = webkit_uri_scheme_request_get_http_headers(request);
    if (!headers) return fields;
    SoupMessageHeadersIter iterator;
    soup_message_headers_iter_init(&iterator, headers);
    const char *name, *value;
    while (soup_message_headers_iter_next(&iterator, &name, &value)) {
        if (g_ascii_strcasecmp(name, "Accept-Encoding") == 0) continue;
        pkgctl_header field = {name, value};
        g_array_append_val(fields, field);
    }
    return fields;
}

static void on_request(WebKitURISchemeRequest *request, gpointer data) {
    (void)data;
    const char *url = webkit_uri_scheme_request_get_uri(request);
    const char *method = webkit_uri_scheme_request_get_http_method(request);
    if (!method) method = "GET";
    char *error = NULL;
    GByteArray *body = read_body(request, &error);
    if (!body) {
        char *shown = log_escaped(url);
        char *message = g_strdup_printf("%s %s: %s", method, shown, error);
        refuse(request, message);
        g_free(message);
        g_free(shown);
        g_free(error);
        return;
    }
    GArray *headers = request_headers(request);
    /* Where the answer will come from and its class, for the log line, before the task starts:
     * the plan the resolver follows (a write-through meanwhile may turn an origin into the overlay). */
    pkgctl_request_plan plan = {.struct_size = sizeof plan};
    if (pkgctl_resolver_plan(handler.resolver, method, url, (const pkgctl_header *)headers->data, headers->len, &plan)
        != PKGCTL_OK) {
        plan.source = plan.resource_class = 0; /* logged as "unknown"; the task says what is wrong */
    }
    struct scheme_task *task = g_new0(struct scheme_task, 1);
    task->id = ++handler.last_id;
    task->request = g_object_ref(request);
    task->method = g_strdup(method);
    task->shown_url = log_escaped(url);
    task->resource_class = pkgctl_resource_class_name(plan.resource_class);
    task->source = pkgctl_source_name(plan.source);
    task->style = plan.resource_class == PKGCTL_CLASS_STYLE;
    /* No callback runs before this returns: they run in dispatch, on this thread. */
    task->handle = pkgctl_task_start(handler.resolver, method, url, (const pkgctl_header *)headers->data, headers->len,
                                     body->data, body->len, &scheme_task_callbacks, GUINT_TO_POINTER(task->id));
    g_array_unref(headers);
    g_byte_array_unref(body);
    if (!task->handle) { /* only for a NULL argument, which WebKit never gives */
        refuse(request, "the resolver did not start the task");
        scheme_task_free(task);
        return;
    }
    g_hash_table_insert(handler.live, GUINT_TO_POINTER(task->id), task);
    if (task->style) g_hash_table_add(handler.pending_styles, GUINT_TO_POINTER(task->id));
    handler.counts.started++;
}

void scheme_handler_register(WebKitWebContext *context, const char *scheme, pkgctl_resolver *resolver) {
    handler.resolver = resolver;
    handler.live = g_hash_table_new(NULL, NULL);
    handler.pending_styles = g_hash_table_new(NULL, NULL);
    webkit_web_context_register_uri_scheme(context, scheme, on_request, NULL, NULL);
    WebKitSecurityManager *security = webkit_web_context_get_security_manager(context);
    webkit_security_manager_register_uri_scheme_as_secure(security, scheme);
    webkit_security_manager_register_uri_scheme_as_cors_enabled(security, scheme);
}

struct scheme_task *scheme_handler_find(void *user) {
    struct scheme_task *task = g_hash_table_lookup(handler.live, user);
    if (!task) handler.counts.late++;
    return task;
}

struct held_bytes *scheme_handler_held(void) { return &handler.held; }

bool scheme_handler_style_pending_before(guint id) {
    GHashTableIter iterator;
    gpointer style;
    g_hash_table_iter_init(&iterator, handler.pending_styles);
    while (g_hash_table_iter_next(&iterator, &style, NULL)) {
        if (GPOINTER_TO_UINT(style) < id) return true;
    }
    return false;
}

void scheme_handler_style_settled(guint id) {
    if (!g_hash_table_remove(handler.pending_styles, GUINT_TO_POINTER(id)) || handler.closing) return;
    /* Released in request order, each once nothing before it is pending. */
    GList *released = NULL;
    GHashTableIter iterator;
    gpointer task;
    g_hash_table_iter_init(&iterator, handler.live);
    while (g_hash_table_iter_next(&iterator, NULL, &task)) {
        struct scheme_task *held = task;
        if (held->end_held && !scheme_handler_style_pending_before(held->id)) released = g_list_prepend(released, held);
    }
    released = g_list_sort(released, by_id);
    for (GList *item = released; item; item = item->next) scheme_task_release_end(item->data);
    g_list_free(released);
}

void scheme_handler_stop(struct scheme_task *task, const char *note) {
    g_hash_table_remove(handler.live, GUINT_TO_POINTER(task->id));
    pkgctl_task_stop(task->handle);
    handler.counts.stopped++;
    char *stopped = g_strdup_printf("stopped: %s", note);
    log_task(task, false, stopped);
    g_free(stopped);
    scheme_task_free(task);
}

void scheme_handler_ended(struct scheme_task *task, const char *failure) {
    g_hash_table_remove(handler.live, GUINT_TO_POINTER(task->id));
    pkgctl_task_stop(task->handle); /* after its end: releases the handle */
    if (failure) {
        handler.counts.failed++;
        char *note = g_strdup_printf("failed: %s", failure);
        log_task(task, true, note);
        g_free(note);
    } else {
        handler.counts.finished++;
        log_task(task, true, NULL);
    }
    scheme_task_free(task);
}

struct scheme_counts scheme_handler_counts(void) {
    struct scheme_counts counts = handler.counts;
    counts.live = g_hash_table_size(handler.live);
    counts.peak_held = handler.held.peak;
    return counts;
}

void scheme_handler_log_live(unsigned limit) {
    GHashTableIter iterator;
    gpointer task;
    g_hash_table_iter_init(&iterator, handler.live);
    for (unsigned count = 0; count < limit && g_hash_table_iter_next(&iterator, NULL, &task); count++) {
        log_task(task, true, "still running");
    }
}

void scheme_handler_close(void) {
    handler.closing = true;
    GHashTableIter iterator;
    gpointer task;
    g_hash_table_iter_init(&iterator, handler.live);
    while (g_hash_table_iter_next(&iterator, NULL, &task)) {
        pkgctl_task_stop(((struct scheme_task *)task)->handle);
        scheme_task_free(task);
        g_hash_table_iter_remove(&iterator);
    }
    g_source_remove(handler.resolver_source);
    pkgctl_resolver_destroy(handler.resolver);
}
