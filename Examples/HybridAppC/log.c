#include "log.h"

#include <errno.h>
#include <glib.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

enum { MESSAGE_LIMIT = 120 };

static void write_all(int descriptor, const char *text, size_t length) {
    size_t offset = 0;
    while (offset < length) {
        ssize_t count = write(descriptor, text + offset, length - offset);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return;
        offset += (size_t)count;
    }
}

void log_line(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    char *text = g_strdup_vprintf(format, arguments);
    va_end(arguments);
    char *line = g_strconcat("hybrid-app: ", text, "\n", NULL);
    write_all(2, line, strlen(line));
    g_free(line);
    g_free(text);
}

void log_output(const char *text) { write_all(1, text, strlen(text)); }

char *log_escaped(const char *text) {
    GString *shown = g_string_new(NULL);
    size_t length = strlen(text);
    for (size_t index = 0; index < length; index++) {
        if (index == MESSAGE_LIMIT) {
            g_string_append_printf(shown, "…(%zu bytes)", length);
            break;
        }
        unsigned char byte = (unsigned char)text[index];
        if (byte < 0x20 || byte == 0x7f) {
            g_string_append_printf(shown, "\\u{%x}", byte);
        } else {
            g_string_append_c(shown, (char)byte);
        }
    }
    return g_string_free(shown, FALSE);
}
