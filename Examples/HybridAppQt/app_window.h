// The app's window: a QWebEngineView on an off-the-record profile whose app:// scheme goes to
// the scheme handler, and what the command line asks of a page load (print the DOM, take a
// screenshot, give up after a timeout), SIGHUP reload, and the exit line. Main thread only.
#pragma once

#include "scheme_handler.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

// What to do once a page has loaded.
struct AppReport {
    bool dumpDom = false;
    QString screenshot;
    // A JavaScript expression that must be true before reporting (polled after the load).
    QString waitFor;
    // Loads to report before exiting (SIGHUP reloads the page).
    unsigned loads = 1;
};

// Shows the window with `scheme` answered by `handler`, loads `url`, and sets up the timeout
// (for --dump-dom/--screenshot) and the signal watch (`signalFd`: a signalfd for SIGHUP,
// SIGINT and SIGTERM).
void appWindowOpen(SchemeHandler *handler, const QByteArray &scheme, const AppReport &report, const QUrl &url,
                   unsigned timeoutSeconds, int signalFd);
