#include "body_device.h"

#include <QMutexLocker>

#include <algorithm>

BodyDevice::BodyDevice(pkgctl_task *task, HeldBytes &held, BodyExtent extent)
    : task(task), held(held), extent(extent) {
    // Unbuffered: QIODevice's own buffer would hold bytes outside the mutex and the count.
    open(QIODevice::ReadOnly | QIODevice::Unbuffered);
}

BodyDevice::~BodyDevice() { held.current -= queued.size() - readOffset; }

void BodyDevice::append(const void *bytes, size_t length) {
    {
        QMutexLocker locker(&mutex);
        const char *at = static_cast<const char *>(bytes);
        const qint64 dropped = std::min<qint64>(skip, qint64(length));
        consumed(dropped);
        skip -= dropped;
        skipped += dropped;
        queued.append(at + dropped, qsizetype(length) - dropped);
        const qint64 now = held.current += qint64(length) - dropped;
        for (qint64 peak = held.peak; now > peak && !held.peak.compare_exchange_weak(peak, now);) continue;
    }
    emit readyRead();
}

void BodyDevice::finish() {
    {
        QMutexLocker locker(&mutex);
        ended = true;
    }
    emit readyRead();  // Chromium waits for it before it reads again, and sees the end
}

void BodyDevice::abort() {
    {
        QMutexLocker locker(&mutex);
        failed = true;
    }
    task = nullptr;
    emit readyRead();
}

void BodyDevice::detach() { task = nullptr; }

void BodyDevice::consumed(qint64 count) {
    if (count <= 0) return;
    // One queued report at a time; dropped with the device when it is deleted first.
    if (unreported.fetch_add(count) == 0) QMetaObject::invokeMethod(this, [this] { reportConsumed(); }, Qt::QueuedConnection);
}

void BodyDevice::reportConsumed() {
    const qint64 count = unreported.exchange(0);
    if (task && count > 0) pkgctl_task_consumed(task, size_t(count));
}

qint64 BodyDevice::bytesAvailable() const {
    QMutexLocker locker(&mutex);
    return queued.size() - readOffset;
}

bool BodyDevice::atEnd() const {
    QMutexLocker locker(&mutex);
    return ended && !failed && readOffset == queued.size();
}

bool BodyDevice::seek(qint64 position) {
    QMutexLocker locker(&mutex);
    const qint64 offset = position - extent.first;  // from the body's first byte
    if (offset == skipped + skip + delivered) return true;  // already there (a resolver 206)
    if (extent.total <= 0 && !started) return false;  // no length: Qt answers a 200, the whole body
    if (started || offset < skipped) {
        // Bytes before the body's first byte, or passed already: none to give. Qt 6.4 ignores
        // seek()'s result, so the next read fails the load instead of giving wrong bytes.
        failed = true;
        return false;
    }
    skip = offset - skipped;
    // Bytes may be queued already: reply() reaches Qt's IO thread after the first chunks.
    const qint64 dropped = std::min(skip, qint64(queued.size()) - readOffset);
    readOffset += dropped;
    held.current -= dropped;
    consumed(dropped);
    skip -= dropped;
    skipped += dropped;
    return true;
}

qint64 BodyDevice::pos() const {
    QMutexLocker locker(&mutex);
    return extent.first + skipped + skip + delivered;
}

qint64 BodyDevice::readData(char *data, qint64 maximum) {
    QMutexLocker locker(&mutex);
    started = true;
    if (failed) return -1;
    const qint64 count = std::min(maximum, qint64(queued.size()) - readOffset);
    // Qt 6.4 ends a sequential body when read() fails while atEnd() is true (a failure
    // otherwise); a 0 means "wait for readyRead".
    if (count <= 0) return ended ? -1 : 0;
    std::copy_n(queued.constData() + readOffset, count, data);
    readOffset += count;
    delivered += count;
    held.current -= count;
    consumed(count);
    // Bounded: what waits is at most the resolver's window, dropped once half is read.
    if (readOffset == queued.size() || readOffset > queued.size() / 2) {
        queued.remove(0, readOffset);
        readOffset = 0;
    }
    return count;
}
