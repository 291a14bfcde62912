/*
 * hybrid-app-c: a WebKitGTK window on an app:// URL served from pkgctl's store, through
 * the resolver's C ABI (pkgctl/resolver.h). The C twin of Examples/HybridApp.
 */
#include "app_window.h"
#include "log.h"
#include "scheme_handler.h"

#include <errno.h>
#include <getopt.h>
#include <gtk/gtk.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* EX_USAGE: the command line was wrong. */
#define EXIT_USAGE 64

static const char usage[] =
    "usage: hybrid-app-c --root DIR [--scheme app] [--upstream URL] [--ca-file PEM] [--offline] [--media-plugin DIR]\n"
    "                    [--dump-dom] [--screenshot PNG] [--wait-for JS] [--loads N] [--timeout SECONDS] URL\n"
    "Open a page whose custom scheme is served by pkgctl's resolver in a WebKitGTK window.\n"
    "  --root DIR         the pkgctl store to serve (as `pkgctl update --root`)\n"
    "  --scheme NAME      the custom scheme to register (default: app)\n"
    "  --upstream URL     origin for files no package has (default: https://HOST of the request)\n"
    "  --ca-file PEM      the CAs trusted for the origin\n"
    "  --offline          never ask the origin: a file no package has fails\n"
    "  --media-plugin DIR the folder of libgstpkgctl.so (Examples/gst-pkgctl): <video>/<audio> play from the scheme\n"
    "  --dump-dom         print the page's DOM after the load event, then exit (non-zero on a load failure or timeout)\n"
    "  --screenshot PNG   write a PNG of the rendered page, then exit\n"
    "  --wait-for JS      an expression to wait for (polled after the load event) before --dump-dom/--screenshot\n"
    "  --loads N          loads to report before exiting; SIGHUP reloads the page (default: 1)\n"
    "  --timeout SECONDS  seconds to allow for --dump-dom/--screenshot (default: 30)\n";

/* One line on what is wrong with the command line, and the usage status. */
static void refuse(const char *message, const char *value) {
    log_line("%s%s (see --help)", message, value ? value : "");
    exit(EXIT_USAGE);
}

/* `text` as a whole number of at least 1 (smaller ones count as 1, as the Swift app does). */
static unsigned positive(const char *option, const char *text) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value > INT_MAX) {
        char *message = g_strdup_printf("%s takes a whole number, not ", option);
        refuse(message, text);
    }
    return value < 1 ? 1 : (unsigned)value;
}

/* Prepends (or appends) `value` to the list in the environment variable `name`, separated by `separator`. */
static void add_to_list(const char *name, const char *value, const char *separator, bool first) {
    const char *old = getenv(name);
    char *list = !old || !*old ? g_strdup(value) : first ? g_strjoin(separator, value, old, NULL) : g_strjoin(separator, old, value, NULL);
    setenv(name, list, 1);
    g_free(list);
}

/* Media on the app's scheme (Examples/gst-pkgctl). WebKit's web process, where GStreamer plays media,
 * inherits this environment: its playbin finds pkgctlsrc in `plugin_dir`, may use URLs of `scheme`, which
 * the element claims, and the element reads the store with this app's resolver settings. Called before
 * the first web view exists. */
static void enable_media(const char *plugin_dir, const char *scheme, const char *root, const char *upstream,
                         const char *ca_file, bool offline) {
    char *plugin = g_build_filename(plugin_dir, "libgstpkgctl.so", NULL);
    if (access(plugin, R_OK) != 0) refuse("--media-plugin: no libgstpkgctl.so in ", plugin_dir);
    g_free(plugin);
    char *absolute_root = g_canonicalize_filename(root, NULL), *absolute_dir = g_canonicalize_filename(plugin_dir, NULL);
    add_to_list("GST_PLUGIN_PATH", absolute_dir, ":", true);
    add_to_list("WEBKIT_GST_ALLOWED_URI_PROTOCOLS", scheme, ",", false);
    setenv("PKGCTL_MEDIA_SCHEMES", scheme, 1);
    setenv("PKGCTL_MEDIA_ROOT", absolute_root, 1);
    if (upstream) setenv("PKGCTL_MEDIA_UPSTREAM", upstream, 1); else unsetenv("PKGCTL_MEDIA_UPSTREAM");
    if (ca_file) setenv("PKGCTL_MEDIA_CA_FILE", ca_file, 1); else unsetenv("PKGCTL_MEDIA_CA_FILE");
    setenv("PKGCTL_MEDIA_OFFLINE", offline ? "1" : "0", 1);
    g_free(absolute_root);
    g_free(absolute_dir);
}

int main(int argc, char **argv) {
    enum { ROOT = 256, SCHEME, UPSTREAM, CA_FILE, OFFLINE, DUMP_DOM, SCREENSHOT, WAIT_FOR, LOADS, TIMEOUT, MEDIA_PLUGIN, HELP };
    static const struct option options[] = {
        {"root", required_argument, NULL, ROOT},           {"scheme", required_argument, NULL, SCHEME},
        {"upstream", required_argument, NULL, UPSTREAM},   {"ca-file", required_argument, NULL, CA_FILE},
        {"offline", no_argument, NULL, OFFLINE},           {"dump-dom", no_argument, NULL, DUMP_DOM},
        {"screenshot", required_argument, NULL, SCREENSHOT}, {"wait-for", required_argument, NULL, WAIT_FOR},
        {"loads", required_argument, NULL, LOADS},         {"timeout", required_argument, NULL, TIMEOUT},
        {"media-plugin", required_argument, NULL, MEDIA_PLUGIN},
        {"help", no_argument, NULL, HELP},                 {NULL, 0, NULL, 0},
    };
    const char *root = NULL, *scheme = "app", *upstream = NULL, *ca_file = NULL, *media_plugin = NULL;
    bool offline = false;
    struct app_report report = {.loads = 1};
    unsigned timeout = 30;
    opterr = 0; /* getopt's own messages are replaced by one line of ours */
    for (int option; (option = getopt_long(argc, argv, ":h", options, NULL)) != -1;) {
        switch (option) {
        case ROOT: root = optarg; break;
        case SCHEME: scheme = optarg; break;
        case UPSTREAM: upstream = optarg; break;
        case CA_FILE: ca_file = optarg; break;
        case OFFLINE: offline = true; break;
        case DUMP_DOM: report.dump_dom = true; break;
        case SCREENSHOT: report.screenshot = optarg; break;
        case WAIT_FOR: report.wait_for = optarg; break;
        case LOADS: report.loads = positive("--loads", optarg); break;
        case TIMEOUT: timeout = positive("--timeout", optarg); break;
        case MEDIA_PLUGIN: media_plugin = optarg; break;
        case HELP:
        case 'h': fputs(usage, stdout); return 0;
        case ':': refuse("missing value for ", argv[optind - 1]); break;
        default: refuse("unknown option ", argv[optind - 1]);
        }
    }
    if (!root) refuse("missing --root DIR", NULL);
    if (optind != argc - 1) refuse(optind == argc ? "missing the URL to open" : "more than one URL: ", argv[argc - 1]);
    const char *url = argv[optind];
    if (media_plugin) enable_media(media_plugin, scheme, root, upstream, ca_file, offline);

    signal(SIGPIPE, SIG_IGN); /* a page that drops a body stream breaks its pipe: EPIPE, not death */
    /* A launcher may hand down a blocked mask; SIGHUP (reload), SIGINT and SIGTERM must reach the loop. */
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &handled, NULL);
    gtk_init(NULL, NULL);
    pkgctl_resolver *resolver = scheme_handler_create_resolver(root, upstream, ca_file, offline);
    if (!resolver) return 1;
    app_window_open(resolver, scheme, report, url, timeout);
    gtk_main();
    return 0;
}
