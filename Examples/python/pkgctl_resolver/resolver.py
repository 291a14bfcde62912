"""Resolver and Task: the C ABI's resolver and its tasks, for Python hosts."""
from __future__ import annotations

import ctypes
import os
import select
import sys
import threading
import time
import weakref
from typing import Callable, List, NamedTuple, Optional, Set, Union

from . import _abi
from .errors import RefusedError, ResolverError, Result
from .headers import HeaderInput, Headers, pairs

ResponseCallback = Callable[[int, Headers], None]
DataCallback = Callable[[bytes], None]
EndCallback = Callable[[Result, Optional[str]], None]

_MAX_WINDOW = (1 << 64) - 1


def _is_byte_count(value) -> bool:
    """Whether `value` is an int (not a bool) from 0 to 2**64-1, as the C ABI's counts are."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_WINDOW


class Plan(NamedTuple):
    """What Resolver.plan() says: `source` ("package", "overlay", "origin", "offline", "refused")
    and `resource_class` ("html", "script", "style", "image", "other"), the library's names."""
    source: str
    resource_class: str


class Response(NamedTuple):
    """A whole answer, from Resolver.fetch()."""
    status: int
    headers: Headers
    body: bytes


class Task:
    """One request in flight; `with resolver.start(...) as task:` stops it at the end of the block.

    consumed() may run on any thread while a callback of the task runs on the dispatching
    thread, and the library's call may wait for that callback to return. So no lock of this
    object is held across it: a callback that stops the task meanwhile (an end, or a page gone)
    would wait for that lock and the two threads for each other. Such a stop marks the task
    stopped at once, so none of its callbacks runs after stop() returns, and the library's stop
    is left to the last consumed() call still in the library.
    """

    def __init__(self, live: Set["Task"], failures: List[BaseException]):
        self._live = live  # the resolver's set of live tasks (not the resolver: see Resolver.__init__)
        self._failures = failures
        self._handle: Optional[int] = None
        self._callbacks: Optional[_abi.Callbacks] = None  # the ctypes function objects must outlive every call
        self._lock = threading.Lock()
        self._calls = 0  # consumed() calls in the library now
        self._stop_pending: Optional[int] = None  # the handle a stop left to the last of those calls
        self.stopped = False

    def _run(self, callback: Callable[..., None], *arguments) -> None:
        """Calls a host callback; one that raises stops the task, and dispatch() raises it again."""
        if self.stopped:
            return
        try:
            callback(*arguments)
        except BaseException as error:  # noqa: B902: a ctypes callback cannot let anything through
            self._failures.append(error)
            self.stop()

    def consumed(self, length: int) -> None:
        """Reports `length` body bytes used (with explicit_consumption); any thread."""
        if not _is_byte_count(length):
            raise ValueError(f"consumed() takes a byte count from 0 to 2**64-1, not {length!r}")
        with self._lock:
            handle = self._handle
            if not handle:
                return
            self._calls += 1
        try:
            _abi.library().pkgctl_task_consumed(handle, length)
        finally:
            with self._lock:
                self._calls -= 1
                handle = None
                if self._calls == 0:
                    handle, self._stop_pending = self._stop_pending, None
            if handle:
                _abi.library().pkgctl_task_stop(handle)

    def stop(self) -> None:
        """Stops the task unless it ended, and releases it; later calls do nothing. No callback
        of the task runs after it returns."""
        with self._lock:
            handle, self._handle = self._handle, None
            self.stopped = True
            if handle and self._calls:
                self._stop_pending, handle = handle, None
        if handle:
            _abi.library().pkgctl_task_stop(handle)
        self._live.discard(self)

    def __enter__(self) -> "Task":
        return self

    def __exit__(self, *_) -> None:
        self.stop()


def _release(handle: int, live: Set[Task], sources: list) -> None:
    """Detaches the GLib sources, stops the live tasks and frees the resolver: close(), or the
    finalizer of one never closed."""
    for source in sources:
        source.destroy()
    for task in list(live):
        task.stop()
    _abi.library().pkgctl_resolver_destroy(handle)


def _encoded(text: str, what: str) -> bytes:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be str, not {type(text).__name__}")
    return text.encode()


def _fields(headers: Optional[HeaderInput]):
    given = pairs(headers)
    fields = (_abi.Header * max(len(given), 1))(*[_abi.Header(n.encode(), v.encode()) for n, v in given])
    return fields, len(given)


class Resolver:
    """A resolver over a pkgctl store; `with Resolver(...) as resolver:` closes it at the end.

    Callbacks run only inside dispatch(), on the thread that calls it: wait for fileno() to be
    readable (select, selectors, a GLib io watch) and call it. A callback that raises stops its
    task, and dispatch() raises the exception again once it has run the rest.
    """

    def __init__(self, store_root: Union[str, os.PathLike], upstream: Optional[str] = None,
                 ca_file: Optional[Union[str, os.PathLike]] = None, offline: bool = False,
                 explicit_consumption: bool = False, window: int = 0):
        if not _is_byte_count(window):
            raise ValueError(f"window must be a byte count from 0 (1 MiB) to 2**64-1, not {window!r}")
        if upstream is not None and not isinstance(upstream, str):
            raise TypeError(f"upstream must be str, not {type(upstream).__name__}")
        options = _abi.Options(ctypes.sizeof(_abi.Options), os.fsencode(store_root),
                               upstream.encode() if upstream else None, os.fsencode(ca_file) if ca_file else None,
                               1 if offline else 0, 1 if explicit_consumption else 0, window)
        error = ctypes.create_string_buffer(512)
        handle = _abi.library().pkgctl_resolver_create(ctypes.byref(options), error, len(error))
        if not handle:
            raise OSError(error.value.decode(errors="replace"))
        self._handle: Optional[int] = handle
        self._tasks: Set[Task] = set()
        self._failures: List[BaseException] = []
        self._sources: list = []  # GLib sources attach() made
        # Tasks hold the set, not the resolver, so a resolver nobody holds is collected, and its
        # finalizer (which holds the handle and the set) stops them and frees the library's side.
        self._finalizer = weakref.finalize(self, _release, handle, self._tasks, self._sources)

    def _open(self) -> int:
        if self._handle is None:
            raise ValueError("resolver is closed")
        return self._handle

    def fileno(self) -> int:
        """The descriptor that is readable while callbacks wait (for select)."""
        return _abi.library().pkgctl_resolver_fd(self._open())

    def dispatch(self) -> int:
        """Runs the waiting callbacks on this thread; returns how many ran. Raises the first
        exception a callback raised (its task was stopped at once)."""
        ran = _abi.library().pkgctl_resolver_dispatch(self._open())
        if self._failures:
            failure = self._failures[0]
            self._failures.clear()
            raise failure
        return ran

    def start(self, method: str, url: str, headers: Optional[HeaderInput] = None, body: Union[bytes, bytearray, memoryview] = b"",
              on_response: Optional[ResponseCallback] = None, on_data: Optional[DataCallback] = None,
              on_end: Optional[EndCallback] = None) -> Task:
        """Starts a request: on_response(status, Headers), on_data(bytes), on_end(Result, message)."""
        handle = self._open()
        if not isinstance(body, (bytes, bytearray, memoryview)):
            raise TypeError(f"body must be bytes-like, not {type(body).__name__}")
        payload = bytes(body)
        fields, count = _fields(headers)
        task = Task(self._tasks, self._failures)

        def response(_, status, raw, length):
            if on_response:
                task._run(on_response, status, Headers((raw[i].name.decode(errors="replace"),
                                                        raw[i].value.decode(errors="replace")) for i in range(length)))

        def data(_, pointer, length):
            if on_data:
                task._run(on_data, ctypes.string_at(pointer, length))

        def end(_, result, message):
            if on_end:
                task._run(on_end, Result(result), message.decode(errors="replace") if message else None)

        callbacks = _abi.Callbacks(_abi.RESPONSE(response), _abi.DATA(data), _abi.END(end))
        task._callbacks = callbacks
        # The library calls back only from dispatch(), so the task is complete before any callback.
        task._handle = _abi.library().pkgctl_task_start(handle, _encoded(method, "method"), _encoded(url, "url"),
                                                        fields, count, payload or None, len(payload),
                                                        ctypes.byref(callbacks), None)
        if not task._handle:
            raise RefusedError(f"pkgctl_task_start refused {method} {url}")
        self._tasks.add(task)
        return task

    def fetch(self, url: str, method: str = "GET", headers: Optional[HeaderInput] = None,
              body: Union[bytes, bytearray, memoryview] = b"", timeout: float = 30.0) -> Response:
        """Runs one request to its end, dispatching on this thread, for scripts: its Response.
        Raises OfflineError, TransferError or RefusedError (ResolverError) as the task ends, and
        TimeoutError past `timeout` seconds (the task stopped)."""
        got = {"status": None, "headers": Headers(), "body": [], "end": None}
        with self.start(method, url, headers=headers, body=body,
                        on_response=lambda status, fields: got.update(status=status, headers=fields),
                        on_data=got["body"].append,
                        on_end=lambda result, message: got.update(end=(result, message))):
            deadline = time.monotonic() + timeout
            while got["end"] is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{method} {url}: no end after {timeout} s")
                select.select([self], [], [], min(left, 1.0))
                self.dispatch()
        result, message = got["end"]
        if result != Result.OK:
            raise ResolverError.of(result, message)
        return Response(got["status"], got["headers"], b"".join(got["body"]))

    def plan(self, method: str, url: str, headers: Optional[HeaderInput] = None) -> Plan:
        """Where `url` would be answered from and its class, without a task: a Plan."""
        handle = self._open()
        fields, count = _fields(headers)
        plan = _abi.PlanStruct(ctypes.sizeof(_abi.PlanStruct))
        lib = _abi.library()
        if lib.pkgctl_resolver_plan(handle, _encoded(method, "method"), _encoded(url, "url"), fields, count,
                                    ctypes.byref(plan)) != Result.OK:
            raise RefusedError(f"pkgctl_resolver_plan refused {method} {url}")
        return Plan(lib.pkgctl_source_name(plan.source).decode(), lib.pkgctl_resource_class_name(plan.resource_class).decode())

    def report_launch_problem(self, url: str, detail: str) -> bool:
        """The host's word that the launch under way of the page at `url` failed in a way only it
        sees (a page error, a render deadline missed): with a trial by launches running
        (`pkgctl update --confirm-after-launches`), the launch counts as bad. True when a launch
        took it; False when no version on trial by launches serves `url` or none is under way."""
        return _abi.library().pkgctl_resolver_report_launch_problem(
            self._open(), _encoded(url, "url"), _encoded(detail, "detail")) == 1

    def counters(self) -> _abi.Counters:
        """The resolver's Counters."""
        counters = _abi.Counters(ctypes.sizeof(_abi.Counters))
        _abi.library().pkgctl_resolver_counters_get(self._open(), ctypes.byref(counters))
        return counters

    def attach(self, context=None) -> int:
        """Dispatches from a GLib main context (PyGObject's GLib.MainContext; None: the default
        one) whenever callbacks wait, so a GLib host needs no loop of its own; returns the
        source's id. close() detaches it. An exception dispatch() raises goes to sys.excepthook:
        GLib would drop it. PyGObject is imported here only."""
        from gi.repository import GLib

        resolver = weakref.ref(self)  # the source must not keep the resolver alive

        def ready(*_):
            target = resolver()
            if target is None or target._handle is None:
                return GLib.SOURCE_REMOVE
            try:
                target.dispatch()
            except Exception:
                sys.excepthook(*sys.exc_info())
            return GLib.SOURCE_CONTINUE

        source = GLib.unix_fd_source_new(self.fileno(), GLib.IOCondition.IN)
        source.set_callback(ready)
        self._sources.append(source)
        return source.attach(context)

    def close(self) -> None:
        """Stops what still runs and frees the resolver (on the dispatching thread); later calls do nothing."""
        if self._handle is not None:
            self._handle = None
            self._finalizer()

    def __enter__(self) -> "Resolver":
        return self

    def __exit__(self, *_) -> None:
        self.close()
