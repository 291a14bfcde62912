#include "scheme_task.h"

#include "scheme_handler.h"

namespace {

QByteArray header(const pkgctl_header *headers, size_t count, const char *name) {
    for (size_t index = 0; index < count; index++) {
        if (qstricmp(headers[index].name, name) == 0) return headers[index].value;
    }
    return {};
}

bool hasHeader(const pkgctl_header *headers, size_t count, const char *name) {
    for (size_t index = 0; index < count; index++) {
        if (qstricmp(headers[index].name, name) == 0) return true;
    }
    return false;
}

void onResponse(void *user, int32_t status, const pkgctl_header *headers, size_t count) {
    SchemeTask *task = SchemeHandler::instance()->find(user);
    if (!task || !task->job) return;
    task->status = status;
    // The C ABI does not say where an answer came from. A local answer (package or overlay)
    // carries no Date, which a server adds; an origin's does (RFC 9110 §6.6.1).
    task->source = hasHeader(headers, count, "Date") ? "origin" : "local";
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
    // Qt answers a Range itself from the whole body and its length (BodyDevice::seek); a
    // length it is not given is no range: the page gets the whole body with a 200.
    const bool hasBody = task->method != "HEAD" && status != 204 && status != 304;
    const qint64 length = hasBody && status == 200 ? header(headers, count, "Content-Length").toLongLong() : 0;
    task->device = new BodyDevice(task->handle, SchemeHandler::instance()->held(), length);
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
