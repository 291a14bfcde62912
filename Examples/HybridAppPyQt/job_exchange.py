"""One QWebEngineUrlRequestJob and its resolver task: the answer's head becomes reply() or
redirect(), its body a BodyDevice Chromium reads."""
from PyQt6.QtCore import QByteArray, QTimer, QUrl
from PyQt6.QtWebEngineCore import QWebEngineUrlRequestJob

from app_log import log_line
from body_device import BodyDevice

# Response fields Chromium makes itself from reply(): the resolver's are not passed on.
# Qt writes Content-Range itself for the range it answers from the device (body_device.py).
_DROPPED_RESPONSE_HEADERS = {"content-type", "content-length", "content-range", "transfer-encoding", "connection"}


def _suffix_length(value):
    """N of a single suffix Range `bytes=-N`; 0 for any other Range or none."""
    value = (value or "").strip()
    if not value.startswith("bytes=-") or "," in value or not value[7:].strip().isdigit():
        return 0
    return int(value[7:].strip())


def _extent(status, fields):
    """(the resource's length, the body's first byte in it): from a 206's `Content-Range: bytes
    FIRST-LAST/TOTAL`, a 200's Content-Length ((0, 0) when it has none); (None, None) for a 206
    whose Content-Range has another form."""
    if status != 206:
        length = fields.get("content-length", "")
        return (int(length) if status == 200 and length.isdigit() else 0), 0
    value = fields.get("content-range", "").strip()
    if not value.startswith("bytes "):
        return None, None
    span, _, total = value[6:].partition("/")
    first, _, last = span.partition("-")
    if not (first.strip().isdigit() and last.isdigit() and total.isdigit()):
        return None, None
    first, last, total = int(first), int(last), int(total)
    return (total, first) if first <= last < total else (None, None)


class JobExchange:
    """One job and its task: the response head becomes reply() or redirect(), data fills the body."""

    def __init__(self, handler, job, method, url):
        self.handler = handler
        self.job = job
        self.method = method
        self.url = url
        self.task = None
        self.device = None
        self.status = 0
        self.bytes = 0
        self.ended = False
        self.range = None

    def log(self, note=None):
        status = str(self.status) if self.ended or self.status else "-"
        # The bytes the resolver delivered, also for a stopped task: what crossed the scheme.
        shown_range = f" range={self.range}" if self.range else ""
        log_line(f"{self.method} {self.url} {status} {self.bytes}B{shown_range}" + (f" ({note})" if note else ""))

    def response(self, status, headers):
        if self.job is None:
            self.handler.count_late()
            return
        self.status = status
        fields = {name.lower(): value for name, value in headers.items()}
        if 300 <= status < 400 and "location" in fields:
            self.job.redirect(self.job.requestUrl().resolved(QUrl(fields["location"])))
            return
        if status == 404:
            self.job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        extra = {QByteArray(name.encode()): QByteArray(value.encode())
                 for name, value in headers.items() if name.lower() not in _DROPPED_RESPONSE_HEADERS}
        self.job.setAdditionalResponseHeaders(extra)
        total, first = (0, 0) if self.method == "HEAD" or status in (204, 304) else _extent(status, fields)
        if total is None or (status == 206 and not self.range):
            # A part whose place or whole Qt cannot tell (`bytes a-b/*`), or one the page did not
            # ask for (Qt seeks nowhere then): Qt would answer it as a 200 starting at byte 0.
            self.job.fail(QWebEngineUrlRequestJob.Error.RequestFailed)
            return
        self.device = BodyDevice(self.task.consumed, self.job, total=total, first=first)
        # Qt seeks only to a range's first byte it was given: for a suffix (`bytes=-N`) it seeks
        # nowhere and reads N bytes from the body's start, right for a resolver 206 (the body is
        # the last N bytes), not for a 200 (an origin that ignores Range): place that body here.
        suffix = _suffix_length(self.range)
        if status == 200 and total > 0 and suffix:
            self.device.seek(max(0, total - suffix))
        content_type = fields.get("content-type", "application/octet-stream").encode()
        self.job.reply(QByteArray(content_type), self.device)

    def data(self, chunk):
        if self.job is None:
            self.handler.count_late()
            return
        self.bytes += len(chunk)
        if self.device is not None:
            self.device.append(chunk)
            self.handler.peak_held = max(self.handler.peak_held, self.device.held)

    def end(self, result, message):
        if self.job is None:
            self.handler.count_late()
            return
        self.ended = True
        if self.device is not None:
            self.device.finish()
        elif result != 0:
            job = self.job; QTimer.singleShot(0, lambda: job.fail(QWebEngineUrlRequestJob.Error.RequestFailed))
        self.log(None if result == 0 else f"failed: {message}")
        self.handler.release(id(self), abandoned=False)
