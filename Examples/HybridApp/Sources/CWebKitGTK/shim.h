#ifndef HYBRID_APP_CWEBKITGTK_H
#define HYBRID_APP_CWEBKITGTK_H

#define _GNU_SOURCE 1
#include <fcntl.h>
#include <unistd.h>
#include <webkit2/webkit2.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <cairo.h>

/* pipe2 and F_SETPIPE_SZ are GNU extensions that Swift's Glibc module does not show. */
static inline int hybrid_app_pipe(int ends[2]) { return pipe2(ends, O_CLOEXEC); }
static inline int hybrid_app_set_pipe_size(int descriptor, int size) { return fcntl(descriptor, F_SETPIPE_SZ, size); }

#endif
