#include "scheme_task.h"

#include "scheme_handler.h"

#include <algorithm>

namespace {

QByteArray header(const pkgctl_header *headers, size_t count, const char *name) {
    for (size_t index = 0; index < count; index++) {
        if (qstricmp(headers[index].name, name) == 0) return headers[index].value;
    }
    return {};
}

void onResponse(void *user, int32_t status, const pkgctl_header *headers, size_t count) {
    SchemeTask *task = SchemeHandler::instance()->find(user);
    if (!task || !task->job) return;
    task->status = status;
    const QByteArray location = header(headers, count, "Location");
    if (status >= 300 && status < 400 && status != 304 && !location.isEmpty()) {
        // Qt answers with a 303 of its own to `location` and Chromium follows it (a new job);
        // what is left of this body is read and dropped.
        task->job->redirect(task->url.resolved(QUrl::fromEncoded(location)));
        task->answered = true;
        return;
    }
    if (status >= 400) {
        // reply() would give the page a 200 with the error's body (a 404 page run as a
        // script); fail() gives it an error, as a failed load: a script's onerror, fetch() rejects.
        task->job->fail(schemeTaskErrorFor(status));
        task->answered = true;
        return;
    }
    // Qt answers a Range itself from the resource's length and the body's first byte
    // (BodyDevice::seek): a resolver 206 gives both in Content-Range, a 200 its length.
    const bool hasBody = task->method != "HEAD" && status != 204 && status != 304;
    BodyExtent extent;
    if (hasBody && status == 206
        && (task->range.isEmpty() || !schemeTaskExtentOf(header(headers, count, "Content-Range"), extent))) {
        // A part whose place or whole Qt cannot tell (`bytes a-b/*`), or one the page did not
        // ask for (Qt seeks nowhere then): Qt would answer it as a 200 starting at byte 0.
        task->job->fail(QWebEngineUrlRequestJob::RequestFailed);
        task->answered = true;
        return;
    }
    if (hasBody && status == 200) extent.total = header(headers, count, "Content-Length").toLongLong();
    task->device = new BodyDevice(task->handle, SchemeHandler::instance()->held(), extent);
    // Qt seeks only to a range's first byte it was given: for a suffix (`bytes=-N`) it seeks
    // nowhere and reads N bytes from the body's start, right for a resolver 206 (the body is the
    // last N bytes) but not for a 200 (an origin that ignores Range): place that body here.
    const qint64 suffix = schemeTaskSuffixLength(task->range);
    if (status == 200 && extent.total > 0 && suffix > 0) task->device->seek(std::max<qint64>(0, extent.total - suffix));
    QByteArray type = header(headers, count, "Content-Type");
    if (type.isEmpty()) type = "application/octet-stream";
    task->job->reply(type, task->device);
    task->answered = true;
}

void onData(void *user, const void *bytes, size_t length) {
    SchemeTask *task = SchemeHandler::instance()->find(user);
    if (!task) return;
    task->bytes += length;
    if (task->device) {
        task->device->append(bytes, length);
    } else {
        pkgctl_task_consumed(task->handle, length);  // a redirect's or an error's body: dropped
    }
}

void onEnd(void *user, int32_t result, const char *message) {
    SchemeHandler *handler = SchemeHandler::instance();
    SchemeTask *task = handler->find(user);
    if (!task) return;
    if (result == PKGCTL_OK) {
        if (task->device) task->device->finish();
        handler->ended(task, nullptr);
        return;
    }
    const QString failure = QString::fromUtf8(message ? message : "failed");
    if (task->device) {
        task->device->abort();  // the head is out: Chromium's next read fails the load
    } else if (!task->answered && task->job) {
        task->job->fail(result == PKGCTL_ERR_INVALID   ? QWebEngineUrlRequestJob::UrlInvalid
                        : result == PKGCTL_ERR_OFFLINE ? QWebEngineUrlRequestJob::UrlNotFound
                                                       : QWebEngineUrlRequestJob::RequestFailed);
        task->answered = true;
    }
    handler->ended(task, &failure);
}

}  // namespace

const pkgctl_task_callbacks schemeTaskCallbacks = {onResponse, onData, onEnd};

bool schemeTaskExtentOf(const QByteArray &contentRange, BodyExtent &extent) {
    // `bytes FIRST-LAST/TOTAL` (RFC 9110 §14.4), each a decimal number, LAST < TOTAL.
    const QByteArray value = contentRange.trimmed();
    if (!value.startsWith("bytes ")) return false;
    const qsizetype dash = value.indexOf('-'), slash = value.indexOf('/');
    if (dash < 0 || slash < dash) return false;
    bool firstOk = false, lastOk = false, totalOk = false;
    const qint64 first = value.mid(6, dash - 6).trimmed().toLongLong(&firstOk);
    const qint64 last = value.mid(dash + 1, slash - dash - 1).toLongLong(&lastOk);
    const qint64 total = value.mid(slash + 1).toLongLong(&totalOk);
    if (!firstOk || !lastOk || !totalOk || first < 0 || last < first || total <= last) return false;
    extent = {total, first};
    return true;
}

qint64 schemeTaskSuffixLength(const QByteArray &range) {
    const QByteArray value = range.trimmed();
    if (!value.startsWith("bytes=-") || value.contains(',')) return 0;
    bool ok = false;
    const qint64 length = value.mid(7).trimmed().toLongLong(&ok);
    return ok && length > 0 ? length : 0;
}

QWebEngineUrlRequestJob::Error schemeTaskErrorFor(int status) {
    switch (status) {
    case 400: return QWebEngineUrlRequestJob::UrlInvalid;
    case 401:
    case 403: return QWebEngineUrlRequestJob::RequestDenied;
    case 404:
    case 410: return QWebEngineUrlRequestJob::UrlNotFound;
    default: return QWebEngineUrlRequestJob::RequestFailed;
    }
}
