"""The body of one resolver task as Chromium reads it: a QIODevice Qt can answer a Range from."""
import threading

from PyQt6.QtCore import QIODevice, Qt, pyqtSignal


class BodyDevice(QIODevice):
    """Bytes the resolver's data callbacks bring, read by Chromium at its own pace.

    What Chromium reads is reported with `consumed` (the resolver's explicit consumption), so
    the resolver holds its source back once a window of bytes waits here unread. Chromium reads
    on its IO thread; the report is made on the GUI thread by a queued signal: from the IO thread,
    pkgctl_task_consumed (under the Task's lock) waited for the resolver's lock while the GUI
    thread, holding it in dispatch(), ran an end callback whose stop() waited for the Task's lock
    (a deadlock seen one run in three once a video's reads crossed a task's end).

    Qt answers a single Range itself: before the first read it seek()s the device to the
    range's first byte, asks size() for the resource's length, reads the range's length and
    writes the 206 head. So size() is the resource's whole length (`total`: a resolver 206's
    `Content-Range: bytes a-b/TOTAL`, a 200's Content-Length; 0 when unknown, and Qt answers
    a 200), and the body starts at byte `first` of it (the 206's `a`, 0 for a 200). A seek to
    `first` is where the body is; a later one drops the bytes before it as they come (a 200
    from an origin that ignores Range); one before `first`, or once reading started, fails the
    body, so Chromium's next read fails instead of taking bytes from the wrong offset.
    """

    _consumption_due = pyqtSignal()

    def __init__(self, consumed, parent=None, total=0, first=0):
        super().__init__(parent)
        self._unreported = 0
        self._unreported_lock = threading.Lock()
        self._consumption_due.connect(self._report_consumed, Qt.ConnectionType.QueuedConnection)
        self._pending = bytearray()
        self._finished = False
        self._failed = False
        self._consumed = consumed
        self._total = total
        self._first = first
        self._skip = 0  # bytes still to drop before the position Qt sought
        self._skipped = 0
        self.delivered = 0  # bytes Chromium read
        self.open(QIODevice.OpenModeFlag.ReadOnly | QIODevice.OpenModeFlag.Unbuffered)

    def _count_consumed(self, count):
        """Any thread: `count` more bytes are consumed; the GUI thread reports them."""
        with self._unreported_lock:
            first = self._unreported == 0
            self._unreported += count
        if first and count:
            self._consumption_due.emit()

    def _report_consumed(self):
        with self._unreported_lock:
            count, self._unreported = self._unreported, 0
        if count:
            self._consumed(count)

    def append(self, data):
        dropped = min(self._skip, len(data))
        if dropped:
            self._skip -= dropped
            self._skipped += dropped
            self._count_consumed(dropped)
        self._pending += data[dropped:]
        self.readyRead.emit()

    def finish(self):
        self._finished = True
        self.readyRead.emit()
        self.readChannelFinished.emit()

    @property
    def held(self):
        """Bytes the resolver delivered that Chromium has not read yet: at most its window."""
        return len(self._pending)

    def isSequential(self):
        return True

    def size(self):
        return self._total

    def pos(self):
        return self._first + self._skipped + self._skip + self.delivered

    def seek(self, position):
        offset = position - self._first
        if offset == self._skipped + self._skip + self.delivered:
            return True  # already there (a resolver 206)
        if self._total <= 0 and not self.delivered:
            return False  # no length: Qt answers a 200 with the whole body
        if self.delivered or offset < self._skipped:
            self._failed = True
            return False
        self._skip = offset - self._skipped
        dropped = min(self._skip, len(self._pending))
        del self._pending[:dropped]
        self._skip -= dropped
        self._skipped += dropped
        self._count_consumed(dropped)
        return True

    def bytesAvailable(self):
        return len(self._pending)

    def atEnd(self):
        return self._finished and not self._failed and not self._pending

    def readData(self, maxlen):
        if self._failed:
            return None
        if not self._pending:
            return None if self._finished else b""
        taken = bytes(self._pending[:maxlen])
        del self._pending[:maxlen]
        self.delivered += len(taken)
        self._count_consumed(len(taken))
        return taken

    def writeData(self, data):
        return -1
