"""The window and its web view: --dump-dom, --screenshot, --wait-for, SIGHUP reload, the exit line."""
from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from typing import Callable, Optional

from gi.repository import GLib, Gtk, WebKit2

from app_log import log_escaped, log_line, log_output
from process_stats import ProcessStats, process_stats_now
from scheme_handler import WINDOW, SchemeHandler


@dataclass
class Report:
    """What to report of each load, and how many loads before exiting."""
    dump_dom: bool = False
    screenshot: Optional[str] = None
    wait_for: Optional[str] = None
    loads: int = 1

    @property
    def automated(self) -> bool:
        return self.dump_dom or self.screenshot is not None


class AppWindow:
    """A toplevel with one web view on `url`; only the last navigation's outcome counts."""

    def __init__(self, handler: SchemeHandler, scheme: str, report: Report, url: str, timeout_seconds: int):
        self.handler = handler
        self.report = report
        self.loads_reported = 0
        self.failure: Optional[str] = None  # the current navigation's, reported at its finish
        # A load another navigation replaced: WebKit still ends it with a FINISHED, not the page to report.
        self.superseded = False
        self.baseline: Optional[ProcessStats] = None  # after the first load: the exit line's start
        self.exiting = False
        context = WebKit2.WebContext.new_ephemeral()
        handler.register(context, scheme)
        self.view = WebKit2.WebView.new_with_context(context)
        toplevel = Gtk.Window()
        toplevel.set_default_size(1024, 768)
        toplevel.add(self.view)
        toplevel.connect("destroy", lambda *_: self.exit(0))
        self.view.connect("load-changed", self._on_load_changed)
        self.view.connect("load-failed", self._on_load_failed)
        self.view.connect("web-process-terminated",
                          lambda _view, reason: self.exit(1, f"web process terminated (reason {int(reason)})"))
        toplevel.show_all()
        if report.automated:
            GLib.timeout_add_seconds(timeout_seconds, lambda: self.exit(2, "timed out"))
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGHUP, self._on_reload_signal)
        for number in (signal.SIGINT, signal.SIGTERM):
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, lambda: self.exit(0))
        self.view.load_uri(url)

    def exit(self, code: int, message: Optional[str] = None) -> bool:
        """Waits (30 s at most) for tasks to settle, frees the resolver, prints the exit line, exits."""
        if self.exiting:
            return GLib.SOURCE_REMOVE  # a source that fired while the loop below turns
        self.exiting = True
        if message:
            log_line(message)
        context = GLib.MainContext.default()
        for _ in range(3000):
            if not self.handler.live:
                break
            for _ in range(1000):
                if not context.iteration(False):
                    break
            time.sleep(0.01)
        self.handler.log_live(5)
        counts, live, peak_held = dict(self.handler.counts), len(self.handler.live), self.handler.held.peak
        self.handler.close()
        end = process_stats_now()
        start = self.baseline or end
        log_line(f"exit {code}: tasks started={counts['started']} finished={counts['finished']} "
                 f"failed={counts['failed']} stopped={counts['stopped']} late={counts['late']} live={live} "
                 f"fds={start.descriptors}->{end.descriptors} pipes={start.pipes}->{end.pipes} "
                 f"sockets={start.sockets}->{end.sockets} rss-kb={start.resident_kib}->{end.resident_kib} "
                 f"peak-rss-kb={end.peak_resident_kib} peak-held-kb={peak_held // 1024} window-kb={WINDOW // 1024}")
        os._exit(code)  # as the C app's exit(): WebKit's threads are not joined

    def _evaluate(self, script: str, then: Callable[[Optional[str]], None]) -> None:
        """Runs `script` in the page; `then` gets its result as a string (None: an exception)."""
        def evaluated(view: WebKit2.WebView, result) -> None:
            try:
                text = view.evaluate_javascript_finish(result).to_string()
            except GLib.Error:
                text = None
            then(text)

        self.view.evaluate_javascript(script, -1, None, None, None, evaluated)

    def _wait_until_condition(self) -> None:
        def checked(text: Optional[str]) -> None:
            if text == "true":
                self._report_page()
            else:  # the timeout bounds the polling
                GLib.timeout_add(50, lambda: self._wait_until_condition() or GLib.SOURCE_REMOVE)

        self._evaluate(f"!!({self.report.wait_for})", checked)

    def _report_page(self) -> None:
        if self.report.dump_dom:
            self._evaluate("document.documentElement.outerHTML", self._dumped)
        else:
            self._screenshot_then_next()

    def _dumped(self, text: Optional[str]) -> None:
        log_output((text or "") + "\n")
        self._screenshot_then_next()

    def _screenshot_then_next(self) -> None:
        if self.report.screenshot is None:
            self._page_reported()
            return

        def taken(view: WebKit2.WebView, result) -> None:
            try:
                view.get_snapshot_finish(result).write_to_png(self.report.screenshot)
            except (GLib.Error, OSError) as error:
                log_line(f"screenshot: {self.report.screenshot}: {error}")
            self._page_reported()

        self.view.get_snapshot(WebKit2.SnapshotRegion.FULL_DOCUMENT, WebKit2.SnapshotOptions.NONE, None, taken)

    def _page_reported(self) -> None:
        self.loads_reported += 1
        if self.loads_reported >= self.report.loads:
            self.exit(0)

    def _load_finished(self) -> None:
        if self.failure:
            self.exit(1, self.failure)
            return
        if self.baseline is None:
            self.baseline = process_stats_now()
        if not self.report.automated:
            return
        if self.report.wait_for:
            self._wait_until_condition()
        else:
            self._report_page()

    def _on_load_changed(self, _view: WebKit2.WebView, event: WebKit2.LoadEvent) -> None:
        if event == WebKit2.LoadEvent.STARTED:
            self.failure = None
        if event != WebKit2.LoadEvent.FINISHED:
            return
        if self.superseded:
            self.superseded = False
            return
        self._load_finished()

    def _on_load_failed(self, _view: WebKit2.WebView, _event: WebKit2.LoadEvent, uri: str, error: GLib.Error) -> bool:
        """A load another navigation replaced (the page set `location`) fails as cancelled: no
        failure of the app, only logged."""
        shown = log_escaped(uri or "")
        if error.matches(WebKit2.NetworkError.quark(), WebKit2.NetworkError.CANCELLED):
            log_line(f"load superseded: {shown}: {error.message}")
            self.superseded = True
        else:
            self.failure = f"load failed: {shown}: {error.message}"
        return False

    def _on_reload_signal(self) -> bool:
        log_line("SIGHUP: reload")
        self.view.reload()
        return GLib.SOURCE_CONTINUE
