#define _GNU_SOURCE
#include <unistd.h>
#include "CSystemShims.h"

int pkg_syncfs(int fd) {
#ifdef __linux__
    return syncfs(fd);
#else
    sync();
    return 0;
#endif
}
