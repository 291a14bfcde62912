"""pkgctl's resolver for Python hosts, through its C ABI (pkgctl/resolver.h) with ctypes.

Standard library only. Callbacks run on the thread that calls Resolver.dispatch(); wait for
Resolver.fileno() to be readable (select, selectors, a GLib io watch) and call it:

    resolver = Resolver("/var/lib/pkgctl")
    task = resolver.start("GET", "app://www.example.com/app/", on_response=print, on_data=..., on_end=...)
    while not done:
        select.select([resolver], [], [], 10)
        resolver.dispatch()
    task.stop()            # exactly once per task, after its end or to cancel it
    resolver.close()

After Task.stop() returns on the dispatching thread (inside a callback too), no callback of
that task runs; from another thread it waits for one in progress, and none starts after it.
The library is found by ctypes.util.find_library("pkgctl-resolver"), or PKGCTL_RESOLVER_LIBRARY.
"""
import collections
import ctypes
import ctypes.util
import os
import threading

OK, ERR_INVALID, ERR_TRANSFER, ERR_OFFLINE, ERR_OTHER = 0, 1, 2, 3, 4
# enum pkgctl_source and enum pkgctl_resource_class (since ABI 0.1); Plan holds their names.
SOURCE_PACKAGE, SOURCE_OVERLAY, SOURCE_ORIGIN, SOURCE_OFFLINE, SOURCE_REFUSED = 1, 2, 3, 4, 5
CLASS_HTML, CLASS_SCRIPT, CLASS_STYLE, CLASS_IMAGE, CLASS_OTHER = 1, 2, 3, 4, 5


class _Header(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class _Options(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("store_root", ctypes.c_char_p), ("upstream", ctypes.c_char_p),
                ("ca_file", ctypes.c_char_p), ("offline", ctypes.c_int32), ("explicit_consumption", ctypes.c_int32),
                ("window", ctypes.c_uint64)]


_RESPONSE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(_Header), ctypes.c_size_t)
_DATA = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_END = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p)


class _Callbacks(ctypes.Structure):
    _fields_ = [("response", _RESPONSE), ("data", _DATA), ("end", _END)]


class _Plan(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("source", ctypes.c_int32), ("resource_class", ctypes.c_int32)]


Plan = collections.namedtuple("Plan", ["source", "resource_class"])
Plan.__doc__ = """What Resolver.plan() says: `source` ("package", "overlay", "origin", "offline", "refused")
and `resource_class` ("html", "script", "style", "image", "other"), the library's names."""


class Counters(ctypes.Structure):
    """The resolver's counters (pkgctl_counters, filled by pkgctl_resolver_counters_get)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("tasks_started", ctypes.c_uint64), ("tasks_succeeded", ctypes.c_uint64),
                ("tasks_failed", ctypes.c_uint64), ("tasks_stopped", ctypes.c_uint64),
                ("body_bytes", ctypes.c_uint64), ("callbacks", ctypes.c_uint64)]


def _load():
    path = os.environ.get("PKGCTL_RESOLVER_LIBRARY") or ctypes.util.find_library("pkgctl-resolver")
    if not path:
        raise OSError("libpkgctl-resolver not found (set PKGCTL_RESOLVER_LIBRARY)")
    lib = ctypes.CDLL(path)
    lib.pkgctl_resolver_create.restype = ctypes.c_void_p
    lib.pkgctl_resolver_create.argtypes = [ctypes.POINTER(_Options), ctypes.c_char_p, ctypes.c_size_t]
    lib.pkgctl_resolver_destroy.argtypes = [ctypes.c_void_p]
    lib.pkgctl_resolver_fd.restype = ctypes.c_int
    lib.pkgctl_resolver_fd.argtypes = [ctypes.c_void_p]
    lib.pkgctl_resolver_dispatch.restype = ctypes.c_size_t
    lib.pkgctl_resolver_dispatch.argtypes = [ctypes.c_void_p]
    lib.pkgctl_task_start.restype = ctypes.c_void_p
    lib.pkgctl_task_start.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Header),
                                      ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(_Callbacks),
                                      ctypes.c_void_p]
    lib.pkgctl_task_consumed.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    lib.pkgctl_task_stop.argtypes = [ctypes.c_void_p]
    lib.pkgctl_resolver_counters_get.restype = ctypes.c_size_t
    lib.pkgctl_resolver_counters_get.argtypes = [ctypes.c_void_p, ctypes.POINTER(Counters)]
    lib.pkgctl_resolver_plan.restype = ctypes.c_int32
    lib.pkgctl_resolver_plan.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Header),
                                         ctypes.c_size_t, ctypes.POINTER(_Plan)]
    lib.pkgctl_resolver_report_launch_problem.restype = ctypes.c_int32
    lib.pkgctl_resolver_report_launch_problem.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
    for name in ("pkgctl_source_name", "pkgctl_resource_class_name"):
        getattr(lib, name).restype = ctypes.c_char_p
        getattr(lib, name).argtypes = [ctypes.c_int32]
    return lib


_lib = None


def _library():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


class Task:
    """One request in flight. Keeps its callbacks alive until stop().

    consumed() may run on any thread while a callback of the task runs on the dispatching
    thread, and the library's call may wait for that callback to return. So no lock of this
    object is held across it: a callback that stops the task meanwhile (an end, or a page gone)
    would wait for that lock and the two threads for each other. Such a stop marks the task
    stopped at once, so none of its callbacks runs after stop() returns, and the library's stop
    is left to the last consumed() call still in the library.
    """

    def __init__(self, resolver, handle, callbacks):
        self._resolver = resolver
        self._handle = handle
        self._callbacks = callbacks  # the ctypes function objects must outlive every call
        self._lock = threading.Lock()
        self._calls = 0  # consumed() calls in the library now
        self._stop_pending = None  # the handle a stop left to the last of those calls
        self.stopped = False

    def consumed(self, length):
        """Reports `length` body bytes used (with explicit_consumption); any thread."""
        with self._lock:
            handle = self._handle
            if not handle:
                return
            self._calls += 1
        try:
            _library().pkgctl_task_consumed(handle, length)
        finally:
            with self._lock:
                self._calls -= 1
                handle = None
                if self._calls == 0:
                    handle, self._stop_pending = self._stop_pending, None
            if handle:
                _library().pkgctl_task_stop(handle)

    def stop(self):
        """Stops the task unless it ended, and releases it; later calls do nothing. No callback
        of the task runs after it returns."""
        with self._lock:
            handle, self._handle = self._handle, None
            self.stopped = True
            if handle and self._calls:
                self._stop_pending, handle = handle, None
        if handle:
            _library().pkgctl_task_stop(handle)
        self._resolver._tasks.discard(self)


class Resolver:
    """A resolver over a pkgctl store; see the module's doc."""

    def __init__(self, store_root, upstream=None, ca_file=None, offline=False, explicit_consumption=False, window=0):
        options = _Options(ctypes.sizeof(_Options), os.fsencode(store_root),
                           upstream.encode() if upstream else None, os.fsencode(ca_file) if ca_file else None,
                           1 if offline else 0, 1 if explicit_consumption else 0, window)
        error = ctypes.create_string_buffer(512)
        self._handle = _library().pkgctl_resolver_create(ctypes.byref(options), error, len(error))
        if not self._handle:
            raise OSError(error.value.decode(errors="replace"))
        self._tasks = set()

    def fileno(self):
        """The descriptor that is readable while callbacks wait (for select)."""
        return _library().pkgctl_resolver_fd(self._handle)

    def dispatch(self):
        """Runs the waiting callbacks on this thread; returns how many ran."""
        return _library().pkgctl_resolver_dispatch(self._handle)

    def start(self, method, url, headers=(), body=b"", on_response=None, on_data=None, on_end=None):
        """Starts a request. on_response(status, [(name, value)]), on_data(bytes), on_end(result, message)."""
        task = None  # set below; the library calls back only from dispatch(), after start() returned

        def response(_, status, fields, count):
            if on_response and not task.stopped:
                on_response(status, [(fields[i].name.decode(), fields[i].value.decode()) for i in range(count)])

        def data(_, bytes_, length):
            if on_data and not task.stopped:
                on_data(ctypes.string_at(bytes_, length))

        def end(_, result, message):
            if on_end and not task.stopped:
                on_end(result, message.decode(errors="replace") if message else None)

        callbacks = _Callbacks(_RESPONSE(response), _DATA(data), _END(end))
        fields = (_Header * max(len(headers), 1))(*[_Header(n.encode(), v.encode()) for n, v in headers])
        handle = _library().pkgctl_task_start(self._handle, method.encode(), url.encode(), fields, len(headers),
                                              body or None, len(body), ctypes.byref(callbacks), None)
        if not handle:
            raise ValueError("pkgctl_task_start refused its arguments")
        task = Task(self, handle, callbacks)
        self._tasks.add(task)
        return task

    def plan(self, method, url, headers=()):
        """Where `url` would be answered from and its class, without a task: a Plan."""
        fields = (_Header * max(len(headers), 1))(*[_Header(n.encode(), v.encode()) for n, v in headers])
        plan = _Plan(ctypes.sizeof(_Plan))
        if _library().pkgctl_resolver_plan(self._handle, method.encode(), url.encode(), fields, len(headers),
                                           ctypes.byref(plan)) != OK:
            raise ValueError("pkgctl_resolver_plan refused its arguments")
        return Plan(_library().pkgctl_source_name(plan.source).decode(),
                    _library().pkgctl_resource_class_name(plan.resource_class).decode())

    def report_launch_problem(self, url, detail):
        """The host's word that the launch under way of the page at `url` failed in a way only it
        sees (a page error, a render deadline missed): with a trial by launches running
        (`pkgctl update --confirm-after-launches`), the launch counts as bad. True when a launch
        took it; False when no version on trial by launches serves `url` or none is under way."""
        return _library().pkgctl_resolver_report_launch_problem(self._handle, url.encode(), detail.encode()) == 1

    def counters(self):
        """The resolver's Counters."""
        counters = Counters(ctypes.sizeof(Counters))
        _library().pkgctl_resolver_counters_get(self._handle, ctypes.byref(counters))
        return counters

    def close(self):
        """Stops what still runs and frees the resolver (on the dispatching thread)."""
        for task in list(self._tasks):
            task.stop()
        if self._handle:
            _library().pkgctl_resolver_destroy(self._handle)
            self._handle = None
