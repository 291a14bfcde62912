#include "app_window.h"

#include "log.h"
#include "process_stats.h"
#include "scheme_handler.h"

#include <glib-unix.h>
#include <stdlib.h>
#include <unistd.h>
#include <webkit2/webkit2.h>

/* What an evaluated script's result is for. */
enum evaluation { EVALUATION_CONDITION, EVALUATION_DOM };

static struct {
    WebKitWebView *view;
    struct app_report report;
    unsigned loads_reported;
    /* The current navigation's failure, reported at its finish. */
    char *failure;
    /* A load was cancelled because another navigation replaced it: WebKit still ends it
     * with a load-changed FINISHED, which is not the page to report. */
    bool superseded;
    /* Descriptors and memory after the first load: the exit line's starting point. */
    bool has_baseline;
    struct process_stats baseline;
} window;

/* Waits (30 s at most) for tasks to settle, destroys the resolver, prints the exit line, and
 * exits. The ABI does not show origin transfers winding down (the Swift app waits for them):
 * after the destroy none is left, so what the line shows still open is the app's or WebKit's. */
static void app_exit(int code, const char *message) {
    static bool exiting;
    if (exiting) return; /* a source that fired while the loop below turns */
    exiting = true;
    if (message) log_line("%s", message);
    for (int round = 0; round < 3000 && scheme_handler_counts().live > 0; round++) {
        for (int turn = 0; turn < 1000 && g_main_context_iteration(NULL, FALSE); turn++) continue;
        usleep(10000);
    }
    scheme_handler_log_live(5);
    struct scheme_counts counts = scheme_handler_counts();
    scheme_handler_close();
    struct process_stats end = process_stats_now();
    struct process_stats start = window.has_baseline ? window.baseline : end;
    log_line("exit %d: tasks started=%u finished=%u failed=%u stopped=%u late=%u live=%u "
             "fds=%d->%d pipes=%d->%d sockets=%d->%d rss-kb=%ld->%ld peak-rss-kb=%ld peak-held-kb=%zu window-kb=%d",
             code, counts.started, counts.finished, counts.failed, counts.stopped, counts.late, counts.live,
             start.descriptors, end.descriptors, start.pipes, end.pipes, start.sockets, end.sockets, start.resident_kib,
             end.resident_kib, end.peak_resident_kib, counts.peak_held / 1024, SCHEME_HANDLER_WINDOW / 1024);
    exit(code);
}

static void report_page(void);

/* Runs `script` in the page; its result goes to on_evaluated as a string. */
static void evaluate(const char *script, enum evaluation purpose);

static void wait_until_condition(void) {
    char *script = g_strdup_printf("!!(%s)", window.report.wait_for);
    evaluate(script, EVALUATION_CONDITION);
    g_free(script);
}

static gboolean on_poll(gpointer data) {
    (void)data;
    wait_until_condition();
    return G_SOURCE_REMOVE;
}

static void page_reported(void) {
    window.loads_reported++;
    if (window.loads_reported >= window.report.loads) app_exit(0, NULL);
}

static void on_snapshot(GObject *source, GAsyncResult *result, gpointer data) {
    (void)data;
    GError *error = NULL;
    cairo_surface_t *surface = webkit_web_view_get_snapshot_finish(WEBKIT_WEB_VIEW(source), result, &error);
    if (!surface) {
        log_line("screenshot: %s", error ? error->message : "no image");
        g_clear_error(&error);
    } else {
        cairo_status_t status = cairo_surface_write_to_png(surface, window.report.screenshot);
        if (status != CAIRO_STATUS_SUCCESS) {
            log_line("screenshot: %s: %s", window.report.screenshot, cairo_status_to_string(status));
        }
        cairo_surface_destroy(surface);
    }
    page_reported();
}

static void screenshot_then_next(void) {
    if (!window.report.screenshot) {
        page_reported();
        return;
    }
    webkit_web_view_get_snapshot(window.view, WEBKIT_SNAPSHOT_REGION_FULL_DOCUMENT, WEBKIT_SNAPSHOT_OPTIONS_NONE, NULL,
                                 on_snapshot, NULL);
}

static void on_evaluated(GObject *source, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    JSCValue *value = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(source), result, &error);
    g_clear_error(&error);
    char *text = value ? jsc_value_to_string(value) : NULL; /* NULL: an exception */
    if (value) g_object_unref(value);
    if (GPOINTER_TO_INT(data) == EVALUATION_CONDITION) {
        if (text && g_str_equal(text, "true")) {
            report_page();
        } else {
            g_timeout_add(50, on_poll, NULL); /* the timeout bounds the polling */
        }
    } else {
        log_output(text ? text : "");
        log_output("\n");
        screenshot_then_next();
    }
    g_free(text);
}

static void evaluate(const char *script, enum evaluation purpose) {
    webkit_web_view_evaluate_javascript(window.view, script, -1, NULL, NULL, NULL, on_evaluated,
                                        GINT_TO_POINTER(purpose));
}

static void report_page(void) {
    if (window.report.dump_dom) {
        evaluate("document.documentElement.outerHTML", EVALUATION_DOM);
    } else {
        screenshot_then_next();
    }
}

static bool is_automated(void) { return window.report.dump_dom || window.report.screenshot; }

static void load_finished(void) {
    if (window.failure) app_exit(1, window.failure);
    if (!window.has_baseline) {
        window.baseline = process_stats_now();
        window.has_baseline = true;
    }
    if (!is_automated()) return;
    if (window.report.wait_for) {
        wait_until_condition();
    } else {
        report_page();
    }
}

/* Only the last navigation's outcome counts: a new one starting clears what an earlier one
 * left, and its finish is what is reported. */
static void on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer data) {
    (void)view, (void)data;
    if (event == WEBKIT_LOAD_STARTED) g_clear_pointer(&window.failure, g_free);
    if (event != WEBKIT_LOAD_FINISHED) return;
    if (window.superseded) {
        window.superseded = false;
        return;
    }
    load_finished();
}

/* A load another navigation replaced (the page set `location`, the user clicked on) fails
 * as cancelled: that is no failure of the app, and is only logged. */
static gboolean on_load_failed(WebKitWebView *view, WebKitLoadEvent event, gchar *uri, GError *error, gpointer data) {
    (void)view, (void)event, (void)data;
    const char *message = error ? error->message : "unknown error";
    char *shown = log_escaped(uri ? uri : "");
    if (error && g_error_matches(error, WEBKIT_NETWORK_ERROR, WEBKIT_NETWORK_ERROR_CANCELLED)) {
        log_line("load superseded: %s: %s", shown, message);
        window.superseded = true;
    } else {
        g_free(window.failure);
        window.failure = g_strdup_printf("load failed: %s: %s", shown, message);
    }
    g_free(shown);
    return FALSE;
}

static void on_web_process_terminated(WebKitWebView *view, WebKitWebProcessTerminationReason reason, gpointer data) {
    (void)view, (void)data;
    char *message = g_strdup_printf("web process terminated (reason %d)", (int)reason);
    app_exit(1, message);
    g_free(message);
}

static void on_destroy(GtkWidget *widget, gpointer data) {
    (void)widget, (void)data;
    app_exit(0, NULL);
}

static gboolean on_timeout(gpointer data) {
    (void)data;
    app_exit(2, "timed out");
    return G_SOURCE_REMOVE;
}

static gboolean on_reload_signal(gpointer data) {
    (void)data;
    log_line("SIGHUP: reload");
    webkit_web_view_reload(window.view);
    return G_SOURCE_CONTINUE;
}

static gboolean on_exit_signal(gpointer data) {
    (void)data;
    app_exit(0, NULL);
    return G_SOURCE_REMOVE;
}

void app_window_open(pkgctl_resolver *resolver, const char *scheme, struct app_report report, const char *url,
                     unsigned timeout_seconds) {
    window.report = report;
    WebKitWebContext *context = webkit_web_context_new_ephemeral();
    scheme_handler_register(context, scheme, resolver);
    window.view = WEBKIT_WEB_VIEW(webkit_web_view_new_with_context(context));
    g_object_unref(context); /* the view holds it */
    GtkWidget *toplevel = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_default_size(GTK_WINDOW(toplevel), 1024, 768);
    gtk_container_add(GTK_CONTAINER(toplevel), GTK_WIDGET(window.view));
    g_signal_connect(toplevel, "destroy", G_CALLBACK(on_destroy), NULL);
    g_signal_connect(window.view, "load-changed", G_CALLBACK(on_load_changed), NULL);
    g_signal_connect(window.view, "load-failed", G_CALLBACK(on_load_failed), NULL);
    g_signal_connect(window.view, "web-process-terminated", G_CALLBACK(on_web_process_terminated), NULL);
    gtk_widget_show_all(toplevel);
    if (is_automated()) g_timeout_add_seconds(timeout_seconds, on_timeout, NULL);
    g_unix_signal_add(SIGHUP, on_reload_signal, NULL);
    g_unix_signal_add(SIGINT, on_exit_signal, NULL);
    g_unix_signal_add(SIGTERM, on_exit_signal, NULL);
    webkit_web_view_load_uri(window.view, url);
}
