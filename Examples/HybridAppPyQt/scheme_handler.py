"""A QWebEngineUrlSchemeHandler whose jobs the pkgctl resolver answers, one task per job."""
from PyQt6.QtCore import QSocketNotifier, QUrl
from PyQt6.QtWebEngineCore import QWebEngineUrlSchemeHandler

from job_exchange import JobExchange


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
        self.peak_held = 0  # the most body bytes one device held unread (body_device.py)
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
        exchange = JobExchange(self, job, method, url)
        exchange.range = next((value for name, value in headers if name.lower() == "range"), None)
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
