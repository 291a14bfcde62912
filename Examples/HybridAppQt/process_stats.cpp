#include "process_stats.h"

#include <QFile>

#include <cstring>
#include <dirent.h>
#include <unistd.h>

namespace {

// The value of `field` ("VmRSS") in /proc/self/status, in KiB; -1 if absent.
long statusKib(const QByteArray &status, const QByteArray &field) {
    for (const QByteArray &line : status.split('\n')) {
        if (line.startsWith(field + ":")) return line.mid(field.size() + 1).trimmed().split(' ').value(0).toLong();
    }
    return -1;
}

}  // namespace

ProcessStats ProcessStats::now() {
    ProcessStats stats;
    DIR *folder = opendir("/proc/self/fd");
    for (dirent *entry; folder && (entry = readdir(folder));) {
        if (entry->d_name[0] == '.') continue;
        char target[64];
        ssize_t length = readlinkat(dirfd(folder), entry->d_name, target, sizeof target - 1);
        target[length > 0 ? length : 0] = '\0';
        stats.descriptors++;
        if (std::strncmp(target, "pipe:", 5) == 0) stats.pipes++;
        if (std::strncmp(target, "socket:", 7) == 0) stats.sockets++;
    }
    if (folder) closedir(folder);
    QFile file("/proc/self/status");
    if (file.open(QIODevice::ReadOnly)) {
        const QByteArray status = file.readAll();
        stats.residentKib = statusKib(status, "VmRSS");
        stats.peakResidentKib = statusKib(status, "VmHWM");
    }
    return stats;
}
