// A response body as Chromium reads it: a sequential QIODevice fed on the main thread by a
// resolver task's data callbacks and read by Qt WebEngine on Chromium's IO thread (Qt 6.4's
// CustomURLLoader calls read() and atEnd() there; QWebEngineUrlRequestJob::reply's
// documentation asks for the device to be made thread-safe). Every member that both threads
// touch sits behind one mutex. Bytes count as consumed (pkgctl_task_consumed) when Chromium
// reads them, so the resolver's window bounds what waits here. The report is made on the main
// thread, never under the mutex: the resolver holds its own lock while it runs a callback on
// the main thread (which may take the mutex), and pkgctl_task_consumed takes that lock, so
// calling it from Chromium's thread under the mutex deadlocked (seen at once).
#pragma once

#include <pkgctl/resolver.h>

#include <QByteArray>
#include <QIODevice>
#include <QMutex>

#include <atomic>

// The response-body bytes the app holds, waiting for Chromium to read them: now and at peak.
struct HeldBytes {
    std::atomic<qint64> current{0};
    std::atomic<qint64> peak{0};
};

class BodyDevice final : public QIODevice {
public:
    // `size`: the body's length when known (0: unknown), which Qt needs to answer a Range itself.
    BodyDevice(pkgctl_task *task, HeldBytes &held, qint64 size);
    ~BodyDevice() override;

    // Main thread: queues a chunk for Chromium and tells it (readyRead).
    void append(const void *bytes, size_t length);
    // Main thread: the body is complete; Chromium sees its end once it has read what is queued.
    void finish();
    // Main thread: the body ends early; Chromium's next read fails (net::ERR_FAILED).
    void abort();
    // Main thread, before the task is stopped: no consumption is reported any more.
    void detach();
    // Main thread: reports what Chromium read since the last report.
    void reportConsumed();

    bool isSequential() const override { return true; }
    qint64 size() const override { return knownSize; }
    qint64 bytesAvailable() const override;
    bool atEnd() const override;
    // Qt 6.4 answers a Range itself: it calls seek(first byte) on the device and reads the
    // range's length. A stream cannot seek, so the bytes before `position` are dropped as they
    // arrive (consumed at once) instead; only before the first read.
    bool seek(qint64 position) override;

protected:
    qint64 readData(char *data, qint64 maximum) override;
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    // Any thread: `count` more bytes are consumed; the main thread hears of it.
    void consumed(qint64 count);

    // Bytes read and not yet reported to the resolver.
    std::atomic<qint64> unreported{0};
    mutable QMutex mutex;
    // Main thread only.
    pkgctl_task *task;
    HeldBytes &held;
    const qint64 knownSize;
    QByteArray queued;
    qint64 readOffset = 0;
    qint64 skip = 0;
    bool started = false, ended = false, failed = false;
};
