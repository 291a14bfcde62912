#ifndef PKG_CSYSTEMSHIMS_H
#define PKG_CSYSTEMSHIMS_H

/* Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module does not set. */

/* syncfs(2): flushes the whole filesystem holding `fd`; returns 0 or -1 with errno. */
int pkg_syncfs(int fd);

#endif
