#ifndef PKG_CSYSTEMSHIMS_H
#define PKG_CSYSTEMSHIMS_H

/* Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module does not set. */

/* syncfs(2): flushes the whole filesystem holding `fd`; returns 0 or -1 with errno. */
int pkg_syncfs(int fd);

/* openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
 * so a relative path can neither leave `dirfd` nor follow a symlink. Returns the
 * new fd, or -1 with errno (ENOSYS/EPERM where the kernel lacks openat2). */
int pkg_open_beneath(int dirfd, const char *path, int flags);

/* renameat2(2) with RENAME_EXCHANGE: swaps two existing paths atomically.
 * Returns 0, or -1 with errno (EINVAL where the filesystem cannot exchange). */
int pkg_exchange(const char *a, const char *b);

/* pthread_setname_np(3) on the calling thread: names it for ps, top and gdb
 * (glibc keeps the first 15 bytes). Returns 0 or an error number. */
int pkg_name_this_thread(const char *name);

/* posix_spawn_file_actions_addclosefrom_np(3): the child closes every descriptor
 * from `lowest` up before it runs, so it inherits nothing the parent has open
 * (another thread's pipes and sockets among them). Returns 0 or an error number. */
int pkg_spawn_close_from(void *actions, int lowest);

/* memmem(3): the first `needle` in `haystack`, or NULL (glibc's two-way search). */
const void *pkg_memmem(const void *haystack, unsigned long haystack_length, const void *needle, unsigned long needle_length);

/* eventfd(2), non-blocking and close-on-exec: a counter that is readable while nonzero.
 * Returns the descriptor, or -1 with errno. */
int pkg_eventfd(void);

#endif
