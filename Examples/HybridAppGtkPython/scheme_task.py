"""One app:// request of WebKit as a resolver task. Its callbacks run on the GLib main thread
(the binding's Resolver.attach dispatches there), so every WebKit call happens there.

The response head becomes finish_with_response with a pipe as its body stream; body bytes go
into the pipe and count as consumed once they are in it. WebKit has no stop callback: when it
drops the stream (the page went away) the pipe breaks and the task is stopped."""
from __future__ import annotations

import html
from typing import TYPE_CHECKING, Optional

from gi.repository import Gio, GLib, Soup, WebKit2

import pkgctl_resolver
from pipe_body import PipeBody

if TYPE_CHECKING:
    from scheme_handler import SchemeHandler

_ERROR_DOMAIN = "hybrid-app-resolver"
_SCRIPT_SAFE = set("/?=&.-_:%#")


def finish_error(request: WebKit2.URISchemeRequest, message: str) -> None:
    """Answers `request` with an error (a refused request, a failure before the head)."""
    request.finish_error(GLib.Error.new_literal(GLib.quark_from_string(_ERROR_DOMAIN), message, 1))


def _script_string(location: str) -> str:
    """`location` as a JavaScript string's characters: what is not plainly safe as \\u{…}."""
    return "".join(c if c.isascii() and (c.isalnum() or c in _SCRIPT_SAFE) else f"\\u{{{ord(c):x}}}" for c in location)


class SchemeTask:
    """A request, its task and its body. `resource_class` and `source` are the resolver's plan,
    for the log line; `status` is 0 before the head, `bytes` the body bytes so far."""

    def __init__(self, handler: "SchemeHandler", identifier: int, request: WebKit2.URISchemeRequest,
                 method: str, shown_url: str, plan: pkgctl_resolver.Plan):
        self.handler = handler
        self.id = identifier
        # Held until it is answered: holding it longer would keep a dropped stream's pipe open.
        self.request: Optional[WebKit2.URISchemeRequest] = request
        self.method = method
        self.shown_url = shown_url
        self.resource_class = plan.resource_class
        self.source = plan.source
        self.status = 0
        self.bytes = 0
        self.body: Optional[PipeBody] = None
        self.task: Optional[pkgctl_resolver.Task] = None
        # A stylesheet: scripts requested after it keep their end until WebKit has all of it,
        # which it tells by dropping the body stream (`style_watched` once watched).
        self.style = plan.resource_class == "style"
        self.style_watched = False
        # A script whose body is all in the pipe but whose end waits for such a stylesheet.
        self.end_held = False

    def _watch_style_stream(self, stream: Gio.InputStream) -> None:
        """WebKit drops a stylesheet's stream once it has the whole body (or the page left):
        then it no longer holds back the scripts after it."""
        if self.style:
            stream.weak_ref(self.handler.style_settled, self.id)
            self.style_watched = True

    def _answer(self, stream: Gio.InputStream, length: int, status: int, content_type: Optional[str],
                headers: Optional[Soup.MessageHeaders] = None) -> None:
        answer = WebKit2.URISchemeResponse.new(stream, length)
        answer.set_status(status, None)
        if content_type:
            answer.set_content_type(content_type)
        if headers is not None:
            answer.set_http_headers(headers)
        self._watch_style_stream(stream)
        self.request.finish_with_response(answer)
        self.request = None

    def _answer_redirect(self, location: str) -> None:
        """WebKitGTK does not follow a 3xx that a custom scheme answers (2.50: "Frame load
        interrupted", and nothing loads), so the redirect becomes a page that replaces itself
        with `location`: the same for a navigation, and no history entry."""
        page = (f'<!doctype html><meta http-equiv="refresh" content="0; url={html.escape(location)}">'
                f'<script>location.replace("{_script_string(location)}")</script>').encode()
        self._answer(Gio.MemoryInputStream.new_from_bytes(GLib.Bytes.new(page)), len(page), 200,
                     "text/html; charset=utf-8")

    def on_response(self, status: int, headers: pkgctl_resolver.Headers) -> None:
        if not self.handler.is_live(self) or self.request is None:
            return
        self.status = status
        # Only the package's own folder redirect (a path on this host, by the plan); an origin's
        # 3xx goes to WebKit as it came, and a `javascript:` location is never run.
        location = headers.get("Location")
        if status == 301 and self.source == "package" and location and location.startswith("/") \
                and not location.startswith("//"):
            self._answer_redirect(location)
            return
        try:
            self.body = PipeBody(self.handler.held, self.task.consumed,
                                 lambda: self.handler.stop(self, "page dropped the stream"))
        except OSError as error:
            message = f"pipe: {error.strerror}"
            finish_error(self.request, message)
            self.request = None
            self.handler.stop(self, message)
            return
        # HEAD, 204 and 304 answers have no body, whatever Content-Length says.
        has_body = self.method != "HEAD" and status not in (204, 304)
        length = headers.get("Content-Length")
        fields = Soup.MessageHeaders.new(Soup.MessageHeadersType.RESPONSE)
        for name, value in headers.items():
            fields.append(name, value)
        self._answer(self.body.take_stream(), (int(length) if length else -1) if has_body else 0, status,
                     headers.get("Content-Type"), fields)

    def on_data(self, data: bytes) -> None:
        if not self.handler.is_live(self):
            return
        self.bytes += len(data)
        if self.body and not self.body.write(data):
            self.handler.stop(self, "page dropped the stream")

    def on_end(self, result: pkgctl_resolver.Result, message: Optional[str]) -> None:
        if not self.handler.is_live(self):
            return
        if result == pkgctl_resolver.Result.OK:
            # WebKitGTK runs a deferred script as soon as its body is complete, without waiting
            # for the stylesheets before it, as HTML requires: a script's end waits until every
            # stylesheet requested before it is all in WebKit (the C app says more).
            if self.body and self.resource_class == "script" and self.handler.style_pending_before(self.id):
                self.end_held = True
                return
            self.release_end()
            return
        failure = message or "failed"
        if self.body:
            self.body.abort()  # the head is out: all that is left is to end the body early
            self.body = None
        elif self.request is not None:
            finish_error(self.request, failure)
            self.request = None
        self.handler.ended(self, failure)

    def release_end(self) -> None:
        """Ends the task: closes its pipe once the body is in it, so the page sees the end."""
        self.end_held = False
        if self.body:
            self.body.finish()
        self.body = None
        self.handler.ended(self, None)

    def free(self) -> None:
        """Closes the body early and lets go of an unanswered request."""
        if self.style and not self.style_watched:
            self.handler.style_settled(self.id)  # a stylesheet WebKit never got holds back nothing
        if self.body:
            self.body.abort()
        self.body = None
        self.request = None
