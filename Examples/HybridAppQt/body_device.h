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

// Where the bytes the resolver sends sit in the resource: Qt needs the resource's length to
// answer a Range itself (it asks size(), seek()s to the range's first byte, reads the range's
// length and writes the 206 head).
struct BodyExtent {
    // The resource's full length (a 206's `Content-Range: bytes a-b/TOTAL`, a 200's
    // Content-Length); 0 when unknown: Qt then answers a 200 with the body as it comes.
    qint64 total = 0;
    // The offset of the body's first byte in the resource: a 206's `a`, 0 for a 200.
    qint64 first = 0;
};

class BodyDevice final : public QIODevice {
public:
    BodyDevice(pkgctl_task *task, HeldBytes &held, BodyExtent extent);
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

    // Sequential: Chromium reads it as a stream, and ends it on read() -1 at atEnd(). Qt 6.4
    // still calls seek() and size() on it before the first read (README, "Range").
    bool isSequential() const override { return true; }
    qint64 size() const override { return extent.total; }
    qint64 bytesAvailable() const override;
    bool atEnd() const override;
    // Qt answers a Range itself: before the first read it calls seek(first byte of the range),
    // and reads the range's length. The body starts at `extent.first` (a resolver 206: the same
    // byte, nothing to do); a later position drops the bytes before it as they arrive (a
    // resolver 200, e.g. from an origin that ignores Range). A position before the body's first
    // byte, or any seek once reading started, fails the body: Chromium's next read fails
    // (net::ERR_FAILED) rather than getting bytes from the wrong offset.
    bool seek(qint64 position) override;
    // The offset in the resource of the next byte Chromium reads.
    qint64 pos() const override;

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
    const BodyExtent extent;
    QByteArray queued;
    qint64 readOffset = 0;
    // Bytes to drop before the position Qt sought, and those dropped so far; bytes read.
    qint64 skip = 0, skipped = 0, delivered = 0;
    bool started = false, ended = false, failed = false;
};
