"""The body of one resolver task as Chromium reads it: a sequential QIODevice."""
import threading

from PyQt6.QtCore import QIODevice, Qt, pyqtSignal


class BodyDevice(QIODevice):
    """Bytes the resolver's data callbacks bring (on the GUI thread), read by Chromium on its
    IO thread at its own pace.

    What each read took is reported back to the GUI thread (a queued signal) and from there to
    the resolver as consumed, so the resolver holds its source back once a window of bytes waits
    here unread. Reporting from the IO thread itself would wait for the task's callback running
    on the GUI thread, which may be waiting to stop the task: a lock inversion (seen as a hang).
    """

    _read = pyqtSignal(int)

    def __init__(self, consumed, parent=None):
        super().__init__(parent)
        self._lock = threading.Lock()
        self._pending = bytearray()
        self._finished = False
        self._read.connect(consumed, Qt.ConnectionType.QueuedConnection)
        self.open(QIODevice.OpenModeFlag.ReadOnly)

    def append(self, data):
        with self._lock:
            self._pending += data
        self.readyRead.emit()

    def finish(self):
        with self._lock:
            self._finished = True
        self.readyRead.emit()
        self.readChannelFinished.emit()

    def isSequential(self):
        return True

    def bytesAvailable(self):
        with self._lock:
            pending = len(self._pending)
        return pending + super().bytesAvailable()

    def atEnd(self):
        with self._lock:
            return self._finished and not self._pending

    def readData(self, maxlen):
        with self._lock:
            if not self._pending:
                # -1 (None) only at the end: Chromium ends a sequential body on a read of -1.
                return None if self._finished else b""
            taken = bytes(self._pending[:maxlen])
            del self._pending[:maxlen]
        self._read.emit(len(taken))
        return taken

    def writeData(self, data):
        return -1
