#include "resource_class.h"

#include <QFileInfo>
#include <QStringList>

const char *resourceClass(const QByteArray &accept, const QUrl &url) {
    static const QStringList scripts = {"js", "mjs", "cjs"};
    static const QStringList images = {"svg", "png", "jpg", "jpeg", "gif", "webp", "avif", "ico", "bmp", "jxl", "apng"};
    const QByteArray lower = accept.toLower();
    if (lower.contains("text/html")) return "html";
    const QString path = url.path();
    const QString last = path.mid(path.lastIndexOf('/') + 1);
    const qsizetype dot = last.lastIndexOf('.');
    const QString extension = dot < 0 ? QString() : last.mid(dot + 1).toLower();
    if (scripts.contains(extension)) return "script";
    if (extension == "css" || lower.contains("text/css")) return "style";
    if (lower.contains("image/") || images.contains(extension)) return "image";
    return "other";
}
