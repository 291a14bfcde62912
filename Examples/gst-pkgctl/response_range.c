#include "response_range.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

/* `text` as a whole number that ends at `*end`; false on anything else. */
static bool number(const char *text, char **end, uint64_t *value) {
    if (*text < '0' || *text > '9') return false;
    errno = 0;
    unsigned long long parsed = strtoull(text, end, 10);
    if (errno) return false;
    *value = parsed;
    return true;
}

static const char *field(const pkgctl_header *headers, size_t count, const char *name) {
    for (size_t i = 0; i < count; i++)
        if (strcasecmp(headers[i].name, name) == 0) return headers[i].value;
    return NULL;
}

bool response_range_parse(int32_t status, const pkgctl_header *headers, size_t count, struct response_range *range) {
    *range = (struct response_range){0};
    const char *length = field(headers, count, "Content-Length");
    if (status == 206) {
        /* "bytes FIRST-LAST/TOTAL", TOTAL may be an asterisk */
        const char *content_range = field(headers, count, "Content-Range");
        if (!content_range || strncasecmp(content_range, "bytes ", 6) != 0) return false;
        char *end;
        uint64_t last;
        if (!number(content_range + 6, &end, &range->first) || *end != '-') return false;
        if (!number(end + 1, &end, &last) || *end != '/' || last < range->first) return false;
        if (end[1] != '*' && (!number(end + 1, &end, &range->total) || *end || range->total <= last)) return false;
        range->ranged = true;
        return true;
    }
    char *end;
    if (length && (!number(length, &end, &range->total) || *end)) range->total = 0;
    const char *accept_ranges = field(headers, count, "Accept-Ranges");
    range->ranged = accept_ranges && strcasecmp(accept_ranges, "bytes") == 0;
    return true;
}
