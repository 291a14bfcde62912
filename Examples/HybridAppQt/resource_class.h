// The class a log line shows (html, script, style, image, other), by the resolver's rule:
// from the request's Accept and the URL path's extension.
#pragma once

#include <QByteArray>
#include <QUrl>

const char *resourceClass(const QByteArray &accept, const QUrl &url);
