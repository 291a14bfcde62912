#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include "CSystemShims.h"

int pkg_syncfs(int fd) {
    return syncfs(fd);
}

int pkg_open_beneath(int dirfd, const char *path, int flags) {
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int pkg_exchange(const char *a, const char *b) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int pkg_name_this_thread(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    return pthread_setname_np(pthread_self(), truncated);
}

int pkg_spawn_close_from(void *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, lowest);
}

const void *pkg_memmem(const void *haystack, unsigned long haystack_length, const void *needle, unsigned long needle_length) {
    return memmem(haystack, haystack_length, needle, needle_length);
}

int pkg_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}
