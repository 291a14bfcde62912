// The app's output: reports on stdout, one log line per event on stderr.
#pragma once

#include <QByteArray>
#include <QString>

// Writes "hybrid-app: TEXT\n" to stderr with one write(2), so lines never interleave.
void logLine(const QString &text);

// Writes `text` whole to stdout.
void logOutput(const QByteArray &text);

// `text` as a log shows it: control characters escaped, cut after 120 bytes.
QString logEscaped(const QByteArray &text);
