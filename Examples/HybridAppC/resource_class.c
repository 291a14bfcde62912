#include "resource_class.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

static bool contains(const char *text, const char *part) {
    if (!text) return false;
    char *lower = g_ascii_strdown(text, -1);
    bool found = strstr(lower, part) != NULL;
    g_free(lower);
    return found;
}

/* The extension of the URL path's last segment, lower-cased, into `ext` ("" if none). */
static void path_extension(const char *url, char *ext, size_t size) {
    const char *scheme = strstr(url, "://");
    const char *path = scheme ? strchr(scheme + 3, '/') : url;
    ext[0] = '\0';
    if (!path) return;
    size_t length = strcspn(path, "?#");
    size_t start = length;
    while (start > 0 && path[start - 1] != '/' && path[start - 1] != '.') start--;
    if (start == 0 || path[start - 1] != '.' || length - start >= size) return;
    for (size_t index = start; index < length; index++) ext[index - start] = g_ascii_tolower(path[index]);
    ext[length - start] = '\0';
}

static bool one_of(const char *ext, const char *const *names) {
    for (; *names; names++) {
        if (strcmp(ext, *names) == 0) return true;
    }
    return false;
}

const char *resource_class(const char *accept, const char *url) {
    static const char *const scripts[] = {"js", "mjs", "cjs", NULL};
    static const char *const images[] = {"svg", "png", "jpg", "jpeg", "gif", "webp", "avif", "ico", "bmp", "jxl", "apng", NULL};
    if (contains(accept, "text/html")) return "html";
    char ext[12];
    path_extension(url, ext, sizeof ext);
    if (one_of(ext, scripts)) return "script";
    if (strcmp(ext, "css") == 0 || contains(accept, "text/css")) return "style";
    if (contains(accept, "image/") || one_of(ext, images)) return "image";
    return "other";
}
