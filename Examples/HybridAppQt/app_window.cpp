#include "app_window.h"

#include "log.h"
#include "process_stats.h"

#include <QApplication>
#include <QPixmap>
#include <QSocketNotifier>
#include <QTimer>
#include <QWebEngineLoadingInfo>
#include <QWebEnginePage>
#include <QWebEngineProfile>
#include <QWebEngineView>

#include <csignal>
#include <sys/signalfd.h>
#include <unistd.h>

namespace {

struct Window {
    SchemeHandler *handler = nullptr;
    QWebEngineView *view = nullptr;
    AppReport report;
    unsigned loadsReported = 0;
    // The navigation in progress (empty when none) and the last document it committed, to
    // tell one that another replaced.
    QUrl loading, committed;
    // A load Qt reported finished whose page is not reported yet (--wait-for still polls), and
    // which load the polling is for: a later load's polling replaces an earlier one's.
    QUrl unreported;
    unsigned generation = 0;
    // Descriptors and memory after the first load: the exit line's starting point.
    bool hasBaseline = false;
    ProcessStats baseline;
} window;

// Waits (30 s at most) for tasks to settle, destroys the resolver, prints the exit line and
// ends the process. _exit: Chromium's own teardown is not what the line measures, and it
// must not run while its threads still read the bodies. Returns only when called again while
// it waits (a timer or signal that fired meanwhile): the first caller's status stands.
void appExit(int code, const QString &message = {}) {
    static bool exiting;
    if (exiting) return;
    exiting = true;
    if (!message.isEmpty()) logLine(message);
    for (int round = 0; round < 3000 && window.handler->counts().live > 0; round++) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        usleep(10000);
    }
    window.handler->logLive(5);
    const SchemeCounts counts = window.handler->counts();
    window.handler->close();
    const ProcessStats end = ProcessStats::now();
    const ProcessStats start = window.hasBaseline ? window.baseline : end;
    logLine(QString("exit %1: tasks started=%2 finished=%3 failed=%4 stopped=%5 late=%6 live=%7 "
                    "fds=%8->%9 pipes=%10->%11 sockets=%12->%13 rss-kb=%14->%15 peak-rss-kb=%16 "
                    "peak-held-kb=%17 window-kb=%18")
                .arg(code)
                .arg(counts.started)
                .arg(counts.finished)
                .arg(counts.failed)
                .arg(counts.stopped)
                .arg(counts.late)
                .arg(counts.live)
                .arg(start.descriptors)
                .arg(end.descriptors)
                .arg(start.pipes)
                .arg(end.pipes)
                .arg(start.sockets)
                .arg(end.sockets)
                .arg(start.residentKib)
                .arg(end.residentKib)
                .arg(end.peakResidentKib)
                .arg(counts.peakHeld / 1024)
                .arg(schemeHandlerWindow / 1024));
    _exit(code);
}

void pageReported() {
    window.loadsReported++;
    if (window.loadsReported >= window.report.loads) appExit(0);
}

void screenshotThenNext() {
    if (!window.report.screenshot.isEmpty()) {
        const QPixmap image = window.view->grab();
        if (image.isNull() || !image.save(window.report.screenshot, "PNG")) {
            logLine("screenshot: " + window.report.screenshot + ": not written");
        }
    }
    pageReported();
}

void reportPage() {
    window.unreported.clear();
    if (!window.report.dumpDom) return screenshotThenNext();
    window.view->page()->runJavaScript("document.documentElement.outerHTML", [](const QVariant &dom) {
        logOutput(dom.toString().toUtf8() + "\n");
        screenshotThenNext();
    });
}

// Polls --wait-for every 50 ms for load `generation`; the timeout bounds it.
void waitUntilCondition(unsigned generation) {
    if (generation != window.generation) return;  // a later load polls now
    window.view->page()->runJavaScript("!!(" + window.report.waitFor + ")", [generation](const QVariant &value) {
        if (generation != window.generation) return;
        if (value.toBool()) return reportPage();
        QTimer::singleShot(50, [generation] { waitUntilCondition(generation); });
    });
}

bool isAutomated() { return window.report.dumpDom || !window.report.screenshot.isEmpty(); }

void loadFinished() {
    if (!window.hasBaseline) {
        window.baseline = ProcessStats::now();
        window.hasBaseline = true;
    }
    if (!isAutomated()) return;
    if (window.report.waitFor.isEmpty()) return reportPage();
    window.unreported = window.committed.isEmpty() ? window.loading : window.committed;
    waitUntilCondition(++window.generation);
}

QString shown(const QUrl &url) { return logEscaped(url.toEncoded()); }

// A document committed. Qt 6.4 reports a navigation the page starts while it still loads
// (it set `location`) as part of the same load: one LoadStarted for the first URL, one end for
// the last. A second document committed within one load is such a replacement (a redirect
// commits only its target).
void onUrlChanged(const QUrl &url) {
    const QUrl document = url.adjusted(QUrl::RemoveFragment);
    if (!window.loading.isEmpty() && !window.committed.isEmpty() && window.committed != document) {
        logLine("load superseded: " + shown(window.committed) + ": replaced by " + shown(document));
    }
    window.committed = document;
}

// Only the last navigation's outcome counts. Chromium ends a navigation another replaced as
// aborted (-3, or stopped), or not at all (onUrlChanged): neither is a failure of the app.
void onLoadingChanged(const QWebEngineLoadingInfo &info) {
    switch (info.status()) {
    case QWebEngineLoadingInfo::LoadStartedStatus:
        // Under load Qt 6.4 may instead end the replaced load as succeeded (its load event never
        // ran) and start the next: a start before the finished page was reported.
        if (!window.unreported.isEmpty() && window.unreported != info.url()) {
            logLine("load superseded: " + shown(window.unreported) + ": replaced by " + shown(info.url()));
        }
        window.unreported.clear();
        window.loading = info.url();
        window.committed.clear();
        return;
    case QWebEngineLoadingInfo::LoadStoppedStatus:
        logLine("load superseded: " + shown(info.url()) + ": stopped");
        window.loading.clear();
        return;
    case QWebEngineLoadingInfo::LoadFailedStatus:
        if (info.errorCode() == -3) {  // net::ERR_ABORTED: another navigation replaced it
            logLine("load superseded: " + shown(info.url()) + ": " + info.errorString());
            window.loading.clear();
            return;
        }
        appExit(1, "load failed: " + shown(info.url()) + ": " + info.errorString());
        return;
    case QWebEngineLoadingInfo::LoadSucceededStatus:
        loadFinished();
        window.loading.clear();
        return;
    }
}

// SIGHUP reloads; SIGINT and SIGTERM exit as the window closing does.
void onSignal(int signalFd) {
    signalfd_siginfo info;
    if (read(signalFd, &info, sizeof info) != sizeof info) return;
    if (info.ssi_signo != SIGHUP) return appExit(0);
    logLine("SIGHUP: reload");
    window.view->reload();
}

}  // namespace

void appWindowOpen(SchemeHandler *handler, const QByteArray &scheme, const AppReport &report, const QUrl &url,
                   unsigned timeoutSeconds, int signalFd) {
    window.handler = handler;
    window.report = report;
    auto *profile = new QWebEngineProfile(qApp);  // no storage name: off the record, nothing on disk
    profile->installUrlSchemeHandler(scheme, handler);
    window.view = new QWebEngineView();
    window.view->setPage(new QWebEnginePage(profile, window.view));
    window.view->resize(1024, 768);
    QObject::connect(window.view->page(), &QWebEnginePage::loadingChanged, onLoadingChanged);
    QObject::connect(window.view->page(), &QWebEnginePage::urlChanged, onUrlChanged);
    QObject::connect(window.view->page(), &QWebEnginePage::renderProcessTerminated,
                     [](QWebEnginePage::RenderProcessTerminationStatus status, int code) {
                         appExit(1, QString("web process terminated (status %1, code %2)").arg(status).arg(code));
                     });
    QObject::connect(qApp, &QApplication::lastWindowClosed, [] { appExit(0); });
    window.view->show();
    if (isAutomated()) QTimer::singleShot(int(timeoutSeconds) * 1000, [] { appExit(2, "timed out"); });
    auto *watch = new QSocketNotifier(signalFd, QSocketNotifier::Read, qApp);
    QObject::connect(watch, &QSocketNotifier::activated, [signalFd] { onSignal(signalFd); });
    window.view->load(url);
}
