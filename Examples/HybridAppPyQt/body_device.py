"""The body of one resolver task as Chromium reads it: a sequential QIODevice."""
from PyQt6.QtCore import QIODevice


class BodyDevice(QIODevice):
    """Bytes the resolver's data callbacks bring, read by Chromium at its own pace.

    Each read reports what it took with `consumed` (the resolver's explicit consumption), so
    the resolver holds its source back once a window of bytes waits here unread.
    """

    def __init__(self, consumed, parent=None):
        super().__init__(parent)
        self._pending = bytearray()
        self._finished = False
        self._consumed = consumed
        self.open(QIODevice.OpenModeFlag.ReadOnly)

    def append(self, data):
        self._pending += data
        self.readyRead.emit()

    def finish(self):
        self._finished = True
        self.readyRead.emit()
        self.readChannelFinished.emit()

    def isSequential(self):
        return True

    def bytesAvailable(self):
        return len(self._pending) + super().bytesAvailable()

    def atEnd(self):
        return self._finished and not self._pending

    def readData(self, maxlen):
        if not self._pending:
            return None if self._finished else b""
        taken = bytes(self._pending[:maxlen])
        del self._pending[:maxlen]
        self._consumed(len(taken))
        return taken

    def writeData(self, data):
        return -1
