#include "process_stats.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of `field` ("VmRSS") in /proc/self/status, in KiB; -1 if absent. */
static long status_kib(const char *status, const char *field) {
    size_t length = strlen(field);
    for (const char *line = status; line && *line; line = strchr(line, '\n')) {
        if (*line == '\n') line++;
        if (strncmp(line, field, length) == 0 && line[length] == ':') return strtol(line + length + 1, NULL, 10);
    }
    return -1;
}

struct process_stats process_stats_now(void) {
    struct process_stats stats = {0, 0, 0, -1, -1};
    DIR *folder = opendir("/proc/self/fd");
    for (struct dirent *entry; folder && (entry = readdir(folder));) {
        if (entry->d_name[0] == '.') continue;
        char target[64];
        ssize_t length = readlinkat(dirfd(folder), entry->d_name, target, sizeof target - 1);
        target[length > 0 ? length : 0] = '\0';
        stats.descriptors++;
        if (strncmp(target, "pipe:", 5) == 0) stats.pipes++;
        if (strncmp(target, "socket:", 7) == 0) stats.sockets++;
    }
    if (folder) closedir(folder);
    char status[8192];
    FILE *file = fopen("/proc/self/status", "r");
    size_t count = file ? fread(status, 1, sizeof status - 1, file) : 0;
    if (file) fclose(file);
    status[count] = '\0';
    stats.resident_kib = status_kib(status, "VmRSS");
    stats.peak_resident_kib = status_kib(status, "VmHWM");
    return stats;
}
