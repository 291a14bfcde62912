/*
 * The app's window: a WebKit web view whose scheme goes to the scheme handler, and what
 * the command line asks of a page load (print the DOM, take a screenshot, give up after a
 * timeout), SIGHUP reload, and the exit line. One per app; main thread only.
 */
#ifndef HYBRID_APP_APP_WINDOW_H
#define HYBRID_APP_APP_WINDOW_H

#include <pkgctl/resolver.h>
#include <stdbool.h>

/* What to do once a page has loaded. */
struct app_report {
    bool dump_dom;
    const char *screenshot;
    /* A JavaScript expression that must be true before reporting (polled after the load event). */
    const char *wait_for;
    /* Loads to report before exiting (SIGHUP reloads the page). */
    unsigned loads;
};

/* Shows the window with `scheme` answered by `resolver`, loads `url`, and sets up the
 * timeout (for --dump-dom/--screenshot) and the signal sources. */
void app_window_open(pkgctl_resolver *resolver, const char *scheme, struct app_report report, const char *url,
                     unsigned timeout_seconds);

#endif
