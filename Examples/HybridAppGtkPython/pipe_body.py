"""The pipe WebKit reads a response body from: a Gio.UnixInputStream over its read end, the
bytes the resolver brings written to its non-blocking write end. What the pipe has taken counts
as consumed (the resolver's window then lets more come); what it has no room for is queued here,
and a broken pipe (WebKit dropped the stream: the page left) is reported to the owner."""
from __future__ import annotations

import errno
import fcntl
import os
from typing import Callable, Optional

from gi.repository import Gio, GLib

_F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ, which Python 3.11 lacks
_PIPE_SIZE = 256 * 1024  # fewer wake-ups; best effort


class HeldBytes:
    """Body bytes queued for full pipes, across every body, now and at the most."""

    def __init__(self) -> None:
        self.current = 0
        self.peak = 0

    def change(self, delta: int) -> None:
        self.current += delta
        self.peak = max(self.peak, self.current)


class PipeBody:
    """One body: `consumed(count)` as the pipe takes bytes, `reader_gone()` when it breaks
    while the task still runs. finish() ends the body once the queue is out; abort() at once."""

    def __init__(self, held: HeldBytes, consumed: Callable[[int], None], reader_gone: Callable[[], None]):
        read_end, self._descriptor = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(self._descriptor, False)
        try:
            fcntl.fcntl(self._descriptor, _F_SETPIPE_SZ, _PIPE_SIZE)
        except OSError:
            pass
        self._stream: Optional[Gio.InputStream] = Gio.UnixInputStream.new(read_end, True)
        self._pending = bytearray()
        self._held = held
        self._consumed: Optional[Callable[[int], None]] = consumed
        self._reader_gone: Optional[Callable[[], None]] = reader_gone
        self._finishing = False
        self._writable_watch = 0
        self._error_watch = GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, self._descriptor,
                                                  GLib.IOCondition.ERR | GLib.IOCondition.HUP, self._on_event)

    def take_stream(self) -> Gio.InputStream:
        """The read end's stream, for WebKit; this body keeps no reference to it, so WebKit
        dropping it closes the read end."""
        stream, self._stream = self._stream, None
        return stream

    def write(self, data: bytes) -> bool:
        """Sends `data` or queues what the pipe cannot take now; False when the reader is gone."""
        if self._descriptor < 0:
            return False
        if not self._pending:
            sent = self._send(data)
            if sent < 0:
                self._close()
                return False
            data = data[sent:]
        if data:
            self._pending += data
            self._held.change(len(data))
            if not self._writable_watch:
                self._writable_watch = GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, self._descriptor,
                                                             GLib.IOCondition.OUT, self._on_event)
        return True

    def finish(self) -> None:
        """The body is complete: the pipe closes once what is queued is in it."""
        self._finishing = True
        self._consumed = self._reader_gone = None
        if not self._pending:
            self._close()

    def abort(self) -> None:
        """Ends the body early (a failure or a stop): WebKit sees the pipe close."""
        self._consumed = self._reader_gone = None
        self._close()
        self._stream = None

    def _send(self, data) -> int:
        """Writes what the pipe takes now; the count, or -1 when the reader is gone."""
        sent = 0
        while sent < len(data):
            try:
                count = os.write(self._descriptor, data[sent:sent + _PIPE_SIZE])
            except InterruptedError:
                continue
            except BlockingIOError:
                break
            except OSError as error:
                if error.errno == errno.EAGAIN:
                    break
                return -1
            sent += count
        if sent and self._consumed:
            self._consumed(sent)
        return sent

    def _close(self) -> None:
        if self._descriptor < 0:
            return
        for watch in (self._writable_watch, self._error_watch):
            if watch:
                GLib.source_remove(watch)
        self._writable_watch = self._error_watch = 0
        os.close(self._descriptor)
        self._descriptor = -1
        self._held.change(-len(self._pending))
        self._pending.clear()

    def _gone(self) -> None:
        """The pipe broke: the owner stops the task, unless it had ended."""
        reader_gone = self._reader_gone
        self._reader_gone = self._consumed = None
        self._close()
        if reader_gone:
            reader_gone()

    def _on_event(self, _descriptor: int, condition: GLib.IOCondition) -> bool:
        if condition & (GLib.IOCondition.ERR | GLib.IOCondition.HUP):
            self._gone()  # removes this source too
            return GLib.SOURCE_REMOVE
        with memoryview(self._pending) as queued:
            sent = self._send(queued)
        if sent < 0:
            self._gone()
            return GLib.SOURCE_REMOVE
        del self._pending[:sent]
        self._held.change(-sent)
        if self._pending:
            return GLib.SOURCE_CONTINUE
        self._writable_watch = 0
        if self._finishing:
            self._close()
        return GLib.SOURCE_REMOVE
