#include "scheme_handler.h"

#include "log.h"

#include <QMap>
#include <QWebEngineUrlRequestJob>

#include <vector>

SchemeHandler *SchemeHandler::current = nullptr;

SchemeHandler *SchemeHandler::create(const ResolverSettings &settings) {
    pkgctl_resolver_options options = {};
    options.struct_size = sizeof options;
    options.store_root = settings.root.constData();
    options.upstream = settings.upstream.isEmpty() ? nullptr : settings.upstream.constData();
    options.ca_file = settings.caFile.isEmpty() ? nullptr : settings.caFile.constData();
    options.offline = settings.offline;
    options.explicit_consumption = 1;  // bytes count once Chromium has read them
    options.window = schemeHandlerWindow;
    char error[512];
    pkgctl_resolver *resolver = pkgctl_resolver_create(&options, error, sizeof error);
    if (!resolver) {
        logLine(QString::fromUtf8(error));
        return nullptr;
    }
    current = new SchemeHandler(resolver);
    return current;
}

SchemeHandler::SchemeHandler(pkgctl_resolver *resolver)
    : resolver(resolver), notifier(new QSocketNotifier(pkgctl_resolver_fd(resolver), QSocketNotifier::Read, this)) {
    // The fd turned readable: callbacks wait; run them here, on the main thread.
    connect(notifier, &QSocketNotifier::activated, this, [this] { pkgctl_resolver_dispatch(this->resolver); });
}

SchemeHandler::~SchemeHandler() { close(); }

void SchemeHandler::requestStarted(QWebEngineUrlRequestJob *job) {
    const QUrl url = job->requestUrl();
    const QByteArray encoded = url.toEncoded();
    auto task = std::make_unique<SchemeTask>();
    task->id = ++lastId;
    task->job = job;
    task->url = url;
    task->method = job->requestMethod();
    task->shownUrl = logEscaped(encoded);
    // Without Accept-Encoding: Chromium passes a custom scheme's body to the page as it is, so
    // a precompressed (.br/.gz) answer must never be chosen. With Range and If-Range: the
    // resolver answers the part (a 206), and Qt, which answers a range itself, seek()s the
    // device to the part's first byte, where its body starts (BodyDevice::seek).
    const QMap<QByteArray, QByteArray> requestHeaders = job->requestHeaders();
    std::vector<pkgctl_header> fields;
    for (auto field = requestHeaders.cbegin(); field != requestHeaders.cend(); ++field) {
        const QByteArray name = field.key().toLower();
        if (name == "accept-encoding") continue;
        if (name == "range") task->range = field.value();
        fields.push_back({field.key().constData(), field.value().constData()});
    }
    // Where the answer will come from and its class, for the log line, before the task starts:
    // the plan the resolver follows (a write-through meanwhile may turn an origin into the overlay).
    pkgctl_request_plan plan = {};
    plan.struct_size = sizeof plan;
    if (pkgctl_resolver_plan(resolver, task->method.constData(), encoded.constData(), fields.data(), fields.size(),
                             &plan) != PKGCTL_OK) {
        plan.source = plan.resource_class = 0;  // logged as "unknown"; the task says what is wrong
    }
    task->resourceClass = pkgctl_resource_class_name(plan.resource_class);
    task->source = pkgctl_source_name(plan.source);
    // Qt 6.4 gives a scheme handler no request body (no requestBody(): see README): a POST
    // reaches the resolver with an empty one.
    task->handle = pkgctl_task_start(resolver, task->method.constData(), encoded.constData(), fields.data(),
                                     fields.size(), nullptr, 0, &schemeTaskCallbacks,
                                     reinterpret_cast<void *>(uintptr_t(task->id)));
    if (!task->handle) {  // only for a NULL argument
        logLine("the resolver did not start the task for " + task->shownUrl);
        job->fail(QWebEngineUrlRequestJob::RequestFailed);
        return;
    }
    const quint64 id = task->id;
    // The job is destroyed on the main thread once Chromium lets go of it; this runs then.
    connect(job, &QObject::destroyed, this, [this, id] { jobGone(id); });
    tasks.emplace(id, std::move(task));
    tally.started++;
}

SchemeTask *SchemeHandler::find(void *user) {
    auto found = tasks.find(quint64(reinterpret_cast<uintptr_t>(user)));
    if (found == tasks.end() || !found->second->handle) {
        tally.late++;
        return nullptr;
    }
    return found->second.get();
}

void SchemeHandler::log(const SchemeTask &task, bool ended, const QString &note) const {
    // A stopped task's status once its head came: a stopped 206 is still a part.
    const QString status = ended || task.status > 0 ? QString::number(task.status) : "-";
    // The bytes the resolver delivered so far, also for a stopped task: what crossed the scheme.
    const QString bytes = ended || task.bytes > 0 ? QString::number(task.bytes) + "B" : "-";
    const QString range = task.range.isEmpty() ? QString() : " range=" + logEscaped(task.range);
    logLine(QString("%1 %2 %3 %4 %5 %6%7%8")
                .arg(QString::fromUtf8(task.method), task.shownUrl, status, task.resourceClass, task.source, bytes,
                     range, note.isEmpty() ? QString() : " (" + note + ")"));
}

void SchemeHandler::ended(SchemeTask *task, const QString *failure) {
    if (task->device) task->device->detach();
    pkgctl_task_stop(task->handle);  // after its end: releases the handle
    task->handle = nullptr;
    if (failure) {
        tally.failed++;
        log(*task, true, "failed: " + *failure);
    } else {
        tally.finished++;
        log(*task, true, {});
    }
    if (!task->job) tasks.erase(task->id);
}

void SchemeHandler::jobGone(quint64 id) {
    auto found = tasks.find(id);
    if (found == tasks.end()) return;
    SchemeTask &task = *found->second;
    task.job = nullptr;
    if (task.handle) {
        if (task.device) task.device->detach();
        pkgctl_task_stop(task.handle);
        task.handle = nullptr;
        tally.stopped++;
        log(task, false, "stopped: the page dropped the request");
    }
    delete task.device;  // Chromium's IO thread is done with it: it destroys the job after
    tasks.erase(found);
}

SchemeCounts SchemeHandler::counts() const {
    SchemeCounts counts = tally;
    counts.live = 0;
    for (const auto &entry : tasks) counts.live += entry.second->handle != nullptr;
    counts.peakHeld = heldBytes.peak;
    return counts;
}

void SchemeHandler::logLive(unsigned limit) const {
    unsigned count = 0;
    for (const auto &entry : tasks) {
        if (count == limit) break;
        if (!entry.second->handle) continue;
        log(*entry.second, true, "still running");
        count++;
    }
}

void SchemeHandler::close() {
    if (closing) return;
    closing = true;
    for (auto &entry : tasks) {
        SchemeTask &task = *entry.second;
        if (!task.handle) continue;
        // The device stays: Chromium may still read it; it gets an error instead of bytes.
        if (task.device) task.device->abort();
        pkgctl_task_stop(task.handle);
        task.handle = nullptr;
    }
    notifier->setEnabled(false);
    pkgctl_resolver_destroy(resolver);
}
