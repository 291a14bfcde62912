"""A QWebEngineUrlSchemeHandler whose jobs the pkgctl resolver answers, one task per job."""
import sys

from PyQt6.QtCore import QByteArray, QSocketNotifier, QTimer, QUrl
from PyQt6.QtWebEngineCore import QWebEngineUrlRequestJob, QWebEngineUrlSchemeHandler

from body_device import BodyDevice

# Response fields Chromium makes itself from reply(): the resolver's are not passed on.
_DROPPED_RESPONSE_HEADERS = {"content-type", "content-length", "transfer-encoding", "connection"}


def log_line(text):
    sys.stderr.write("hybrid-app: " + text + "\n")
    sys.stderr.flush()


def _read_body(job):
    """The request's body, whole (QWebEngineUrlRequestJob::requestBody(), Qt 6.7 and later; Qt 6.4
    has none). Chromium hands it over complete, in memory or files, before the job starts."""
    if job.requestMethod().data() in (b"GET", b"HEAD"):
        return b""
    device = job.requestBody()
    if device is None or not device.open(device.OpenModeFlag.ReadOnly):
        return b""
    return bytes(device.readAll().data())


class SchemeHandler(QWebEngineUrlSchemeHandler):
    """Starts a resolver task for each QWebEngineUrlRequestJob and stops it exactly once: at
    its end, or when Chromium destroys the job first (navigation away, abort)."""

    def __init__(self, resolver, parent=None):
        super().__init__(parent)
        self._resolver = resolver
        self.started = 0
        self.stopped = 0
        self.late = 0
        self._live = {}
        # Callbacks run here, on the GUI thread, when the resolver's descriptor is readable.
        self._notifier = QSocketNotifier(resolver.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(lambda *_: resolver.dispatch())

    @property
    def live(self):
        return len(self._live)

    def requestStarted(self, job):
        method = bytes(job.requestMethod().data()).decode()
        url = job.requestUrl().toString(QUrl.ComponentFormattingOption.FullyEncoded)
        headers = [(bytes(name.data()).decode(), bytes(value.data()).decode())
                   for name, value in job.requestHeaders().items()]
        body = _read_body(job)
        exchange = _Exchange(self, job, method, url)
        exchange.task = self._resolver.start(method, url, headers=headers, body=body,
                                             on_response=exchange.response, on_data=exchange.data,
                                             on_end=exchange.end)
        key = id(exchange)
        self._live[key] = exchange
        self.started += 1
        # The job is Chromium's: when it goes first, its task stops and nothing touches it again.
        job.destroyed.connect(lambda *_: self.release(key, abandoned=True))

    def release(self, key, abandoned):
        exchange = self._live.pop(key, None)
        if exchange is None:
            return
        exchange.job = None
        exchange.task.stop()
        self.stopped += 1
        if abandoned and not exchange.ended:
            exchange.log("stopped")

    def count_late(self):
        self.late += 1


class _Exchange:
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

    def log(self, note=None):
        status = str(self.status) if self.ended else "-"
        log_line(f"{self.method} {self.url} {status} {self.bytes}B" + (f" ({note})" if note else ""))

    def response(self, status, headers):
        if self.job is None:
            self.handler.count_late()
            return
        self.status = status
        fields = {name.lower(): value for name, value in headers}
        if 300 <= status < 400 and "location" in fields:
            self.job.redirect(self.job.requestUrl().resolved(QUrl(fields["location"])))
            return
        if status == 404:
            self.job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        extra = {QByteArray(name.encode()): QByteArray(value.encode())
                 for name, value in headers if name.lower() not in _DROPPED_RESPONSE_HEADERS}
        self.job.setAdditionalResponseHeaders(extra)
        self.device = BodyDevice(self.task.consumed, self.job)
        content_type = fields.get("content-type", "application/octet-stream").encode()
        self.job.reply(QByteArray(content_type), self.device)

    def data(self, chunk):
        if self.job is None:
            self.handler.count_late()
            return
        self.bytes += len(chunk)
        if self.device is not None:
            self.device.append(chunk)

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
