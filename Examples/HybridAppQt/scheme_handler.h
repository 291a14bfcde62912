// Answers the app:// scheme of a QWebEngineProfile from the pkgctl resolver: each
// QWebEngineUrlRequestJob becomes a resolver task (scheme_task.h) with explicit consumption
// and a 512 KiB window. The resolver's fd is watched by a QSocketNotifier on the main thread,
// which runs pkgctl_resolver_dispatch(). A job Chromium destroys (navigation away, an aborted
// fetch) stops its task exactly once, and no callback reaches it after. One per app.
#pragma once

#include "body_device.h"
#include "scheme_task.h"

#include <pkgctl/resolver.h>

#include <QSocketNotifier>
#include <QString>
#include <QWebEngineUrlSchemeHandler>

#include <map>
#include <memory>

// Body bytes a task may have delivered and Chromium not read before the resolver holds back.
constexpr qint64 schemeHandlerWindow = 512 * 1024;

// What the app has seen, for its exit line and its tests.
struct SchemeCounts {
    unsigned started = 0, finished = 0, failed = 0, stopped = 0;
    // Callbacks that reached a task after the app stopped it: must stay 0.
    unsigned late = 0;
    // Tasks started and not yet ended or stopped.
    unsigned live = 0;
    // The most body bytes waiting for Chromium at once.
    qint64 peakHeld = 0;
};

struct ResolverSettings {
    QByteArray root, upstream, caFile;
    bool offline = false;
};

class SchemeHandler final : public QWebEngineUrlSchemeHandler {
public:
    // Creates the resolver; null after logging why.
    static SchemeHandler *create(const ResolverSettings &settings);
    static SchemeHandler *instance() { return current; }
    ~SchemeHandler() override;

    void requestStarted(QWebEngineUrlRequestJob *job) override;

    // What scheme_task.cpp asks of the handler.
    // The live task `user` names; null (and a late callback counted) when there is none.
    SchemeTask *find(void *user);
    // The resolver's end of `task` (`failure` null when it finished): stops its handle, logs.
    void ended(SchemeTask *task, const QString *failure);
    HeldBytes &held() { return heldBytes; }

    SchemeCounts counts() const;
    // Logs the tasks still running (at most `limit`), e.g. at exit.
    void logLive(unsigned limit) const;
    // At exit: stops the tasks still running and destroys the resolver.
    void close();

private:
    explicit SchemeHandler(pkgctl_resolver *resolver);
    // Chromium destroyed the job of task `id`: stops the task if it still runs, frees it.
    void jobGone(quint64 id);
    void log(const SchemeTask &task, bool ended, const QString &note) const;

    static SchemeHandler *current;
    pkgctl_resolver *resolver;
    QSocketNotifier *notifier;
    // Tasks whose job Chromium still holds, or whose resolver task still runs, by id.
    std::map<quint64, std::unique_ptr<SchemeTask>> tasks;
    quint64 lastId = 0;
    SchemeCounts tally;
    HeldBytes heldBytes;
    bool closing = false;
};
