#include "log.h"

#include <cerrno>
#include <unistd.h>

namespace {

constexpr int messageLimit = 120;

void writeAll(int descriptor, const QByteArray &text) {
    qsizetype offset = 0;
    while (offset < text.size()) {
        ssize_t count = write(descriptor, text.constData() + offset, size_t(text.size() - offset));
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return;
        offset += count;
    }
}

}  // namespace

void logLine(const QString &text) { writeAll(2, "hybrid-app: " + text.toUtf8() + "\n"); }

void logOutput(const QByteArray &text) { writeAll(1, text); }

QString logEscaped(const QByteArray &text) {
    QByteArray shown;
    for (qsizetype index = 0; index < text.size(); index++) {
        if (index == messageLimit) {
            shown += "…(" + QByteArray::number(text.size()) + " bytes)";
            break;
        }
        auto byte = static_cast<unsigned char>(text[index]);
        if (byte < 0x20 || byte == 0x7f) {
            shown += "\\u{" + QByteArray::number(byte, 16) + "}";
        } else {
            shown += char(byte);
        }
    }
    return QString::fromUtf8(shown);
}
