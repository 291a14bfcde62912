/* The app's output: reports on stdout, one log line per event on stderr. */
#ifndef HYBRID_APP_LOG_H
#define HYBRID_APP_LOG_H

#include <stddef.h>

/* Writes "hybrid-app: TEXT\n" to stderr with one write(2), so lines never interleave. */
void log_line(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Writes `text` whole to stdout. */
void log_output(const char *text);

/* `text` as a log shows it: control characters escaped, cut after 120 characters.
 * Returns a new string (g_free). */
char *log_escaped(const char *text);

#endif
