// One app:// request of Chromium as a resolver task. Its callbacks run on the main thread
// (pkgctl_resolver_dispatch from a QSocketNotifier), where every QWebEngineUrlRequestJob call
// happens. Qt 6.4's job takes no status or headers (see README), so the head becomes:
// reply(Content-Type, BodyDevice) for 1xx/2xx, redirect(Location) for a 3xx, fail(Error)
// for a 4xx/5xx and for a failure before the head.
#pragma once

#include "body_device.h"

#include <pkgctl/resolver.h>

#include <QByteArray>
#include <QString>
#include <QWebEngineUrlRequestJob>

struct SchemeTask {
    // The callbacks' `user`: an id, not a pointer, so a callback after the stop (which the
    // ABI rules out) finds no task and is counted instead of reaching freed memory.
    quint64 id = 0;
    // Null once the task ended or was stopped.
    pkgctl_task *handle = nullptr;
    // Null once Chromium destroyed the job (QObject::destroyed): never called after that.
    QWebEngineUrlRequestJob *job = nullptr;
    // The body Chromium reads on its IO thread until it destroys the job; deleted then.
    BodyDevice *device = nullptr;
    QUrl url;
    QByteArray method;
    // The request's Range as the page sent it (empty: none), for the log.
    QByteArray range;
    // As the log shows them.
    QString shownUrl;
    const char *resourceClass = "other";
    const char *source = "-";
    // The response status (0 before the head) and the body bytes so far.
    int status = 0;
    quint64 bytes = 0;
    // reply(), redirect() or fail() was called: the job takes no other answer.
    bool answered = false;
};

// The callbacks every task is started with.
extern const pkgctl_task_callbacks schemeTaskCallbacks;

// A 206's `Content-Range: bytes FIRST-LAST/TOTAL` as a body's place in the resource; false
// for any other form (`bytes FIRST-LAST/*`, a malformed value).
bool schemeTaskExtentOf(const QByteArray &contentRange, BodyExtent &extent);

// N of a single suffix Range `bytes=-N` (the last N bytes); 0 for any other Range or none.
qint64 schemeTaskSuffixLength(const QByteArray &range);

// The error fail() reports for an HTTP status of 400 or more.
QWebEngineUrlRequestJob::Error schemeTaskErrorFor(int status);
