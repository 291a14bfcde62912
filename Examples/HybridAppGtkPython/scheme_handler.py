"""The app's scheme: each WebKit request is planned (its class and source for the log line) and
becomes a task of the resolver, whose descriptor the binding's GLib helper watches."""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from gi.repository import GLib, WebKit2

import pkgctl_resolver
from app_log import log_escaped, log_line
from pipe_body import HeldBytes
from scheme_task import SchemeTask, finish_error

# Body bytes the resolver sends ahead of what the pipe has taken, per task (the C app's too).
WINDOW = 512 * 1024
# Request bodies larger than this are refused (they are read into memory).
_MAXIMUM_REQUEST_BODY = 16 << 20
_UNKNOWN = pkgctl_resolver.Plan("unknown", "unknown")


def create_resolver(root: str, upstream: Optional[str], ca_file: Optional[str], offline: bool) -> pkgctl_resolver.Resolver:
    """A resolver counting bytes as consumed once they are in a pipe, dispatched from the default
    main context at idle priority: WebKit's own work comes first (input, drawing, and reading
    the body pipes, which makes room for the bytes the callbacks bring). OSError if refused."""
    resolver = pkgctl_resolver.Resolver(root, upstream=upstream, ca_file=ca_file, offline=offline,
                                        explicit_consumption=True, window=WINDOW)
    source = resolver.attach()
    GLib.MainContext.default().find_source_by_id(source).set_priority(GLib.PRIORITY_DEFAULT_IDLE)
    return resolver


def _read_body(request: WebKit2.URISchemeRequest) -> bytes:
    """The request body (string bodies; WebKit crashes on Blob and FormData ones), read whole.
    GLib.Error on a read error, ValueError for one too large."""
    stream = request.get_http_body()
    if stream is None:
        return b""
    body = bytearray()
    while True:
        chunk = stream.read_bytes(64 * 1024, None).get_data()
        if not chunk:
            return bytes(body)
        body += chunk
        if len(body) > _MAXIMUM_REQUEST_BODY:
            raise ValueError(f"request body over {_MAXIMUM_REQUEST_BODY} bytes")


def _request_headers(request: WebKit2.URISchemeRequest) -> List[Tuple[str, str]]:
    """The request's header fields without Accept-Encoding: WebKit passes a custom-scheme body to
    the page as it is, so a precompressed (.br/.gz) answer must never be chosen."""
    fields: List[Tuple[str, str]] = []

    def add(name: str, value: str) -> None:
        if name.lower() != "accept-encoding":
            fields.append((name, value))

    headers = request.get_http_headers()
    if headers is not None:
        headers.foreach(add)
    return fields


class SchemeHandler:
    """Live tasks by id, the counts of the exit line, and the stylesheets scripts wait for."""

    def __init__(self, resolver: pkgctl_resolver.Resolver):
        self.resolver = resolver
        self.held = HeldBytes()
        self.live: Dict[int, SchemeTask] = {}
        self.counts = {"started": 0, "finished": 0, "failed": 0, "stopped": 0, "late": 0}
        self._last_id = 0
        self._pending_styles: Set[int] = set()  # stylesheet tasks WebKit does not have whole yet
        self._closing = False

    def register(self, context: WebKit2.WebContext, scheme: str) -> None:
        """Serves `scheme` in `context`: secure (a secure context, as https) and CORS-enabled."""
        context.register_uri_scheme(scheme, self._on_request)
        security = context.get_security_manager()
        security.register_uri_scheme_as_secure(scheme)
        security.register_uri_scheme_as_cors_enabled(scheme)

    def _refuse(self, request: WebKit2.URISchemeRequest, message: str) -> None:
        log_line(message)
        finish_error(request, message)

    def _on_request(self, request: WebKit2.URISchemeRequest) -> None:
        url = request.get_uri()
        method = request.get_http_method() or "GET"
        try:
            body = _read_body(request)
        except (GLib.Error, ValueError) as error:
            message = error.message if isinstance(error, GLib.Error) else str(error)
            self._refuse(request, f"{method} {log_escaped(url)}: request body: {message}")
            return
        headers = _request_headers(request)
        # Where the answer will come from and its class, for the log line, before the task starts.
        try:
            plan = self.resolver.plan(method, url, headers)
        except pkgctl_resolver.ResolverError:
            plan = _UNKNOWN  # the task says what is wrong
        self._last_id += 1
        task = SchemeTask(self, self._last_id, request, method, log_escaped(url), plan)
        try:
            task.task = self.resolver.start(method, url, headers=headers, body=body, on_response=task.on_response,
                                            on_data=task.on_data, on_end=task.on_end)
        except (pkgctl_resolver.ResolverError, ValueError, TypeError) as error:
            self._refuse(request, f"the resolver did not start the task: {error}")
            task.request = None
            task.free()
            return
        self.live[task.id] = task
        if task.style:
            self._pending_styles.add(task.id)
        self.counts["started"] += 1

    def is_live(self, task: SchemeTask) -> bool:
        """Whether `task` still runs; a callback for one that does not is counted late."""
        if task.id in self.live:
            return True
        self.counts["late"] += 1
        return False

    def style_pending_before(self, identifier: int) -> bool:
        """Whether a stylesheet requested before task `identifier` is not yet all in WebKit."""
        return any(style < identifier for style in self._pending_styles)

    def style_settled(self, identifier: int) -> None:
        """WebKit has all of stylesheet `identifier` (or never will): releases, in request
        order, the scripts nothing before them holds back any more."""
        if identifier not in self._pending_styles or self._closing:
            return
        self._pending_styles.discard(identifier)
        for task in sorted(self.live.values(), key=lambda held: held.id):
            if task.end_held and not self.style_pending_before(task.id):
                task.release_end()

    def _log(self, task: SchemeTask, ended: bool, note: Optional[str]) -> None:
        """`GET app://www.example.com/app/index.html 200 html package 614B (note)`."""
        status, size = (str(task.status), f"{task.bytes}B") if ended else ("-", "-")
        log_line(f"{task.method} {task.shown_url} {status} {task.resource_class} {task.source} {size}"
                 + (f" ({note})" if note else ""))

    def stop(self, task: SchemeTask, note: str) -> None:
        """The page left `task`: stops it, logs `note`, frees it."""
        self.live.pop(task.id, None)
        task.task.stop()
        self.counts["stopped"] += 1
        self._log(task, False, f"stopped: {note}")
        task.free()

    def ended(self, task: SchemeTask, failure: Optional[str]) -> None:
        """The resolver's end of `task` (`failure` None when it finished): releases, logs, frees it."""
        self.live.pop(task.id, None)
        task.task.stop()  # after its end: releases the handle
        self.counts["failed" if failure else "finished"] += 1
        self._log(task, True, f"failed: {failure}" if failure else None)
        task.free()

    def log_live(self, limit: int) -> None:
        for task in list(self.live.values())[:limit]:
            self._log(task, True, "still running")

    def close(self) -> None:
        """Stops what still runs and frees the resolver."""
        self._closing = True
        for task in list(self.live.values()):
            task.task.stop()
            task.free()
        self.live.clear()
        self.resolver.close()
