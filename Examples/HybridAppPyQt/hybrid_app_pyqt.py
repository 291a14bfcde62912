#!/usr/bin/env python3
"""hybrid-app-pyqt: a Qt WebEngine (Chromium) view on an app:// URL served by pkgctl's resolver
through its C ABI (the Python binding, Examples/python). PyQt6 from PyPI brings a newer Qt than
Debian's 6.4, whose scheme handler cannot read a request's body (QWebEngineUrlRequestJob::
requestBody() came in Qt 6.7): this host is how a POST through the scheme is tested in Chromium.
"""
import argparse
import faulthandler
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Chromium's GPU path under Xvfb or offscreen has nothing to gain and can stall; software it is.
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")
if os.geteuid() == 0:
    # Chromium refuses to run its sandbox as root; a test machine's runs are root.
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")

from PyQt6.QtCore import QTimer, QUrl  # noqa: E402
from PyQt6.QtWebEngineCore import QWebEngineProfile, QWebEnginePage, QWebEngineUrlScheme  # noqa: E402
from PyQt6.QtWidgets import QApplication  # noqa: E402

import pkgctl_resolver  # noqa: E402
from app_log import log_line  # noqa: E402
from scheme_handler import SchemeHandler  # noqa: E402

EXIT_USAGE = 64
# Body bytes the resolver sends ahead of what Chromium has read, per task (the C++ app's too).
WINDOW = 512 * 1024


class LoggingPage(QWebEnginePage):
    """A page whose console messages go to the log, as the WebKitGTK apps' do."""

    def javaScriptConsoleMessage(self, level, message, line, source):
        log_line(f"console: {message} ({source}:{line})")


class UsageRefusingParser(argparse.ArgumentParser):
    def error(self, message):
        log_line(f"{message} (see --help)")
        sys.exit(EXIT_USAGE)


def register_scheme(name):
    """Before the QApplication, as Qt requires. Secure: a secure context, as https would be.
    CorsEnabled and FetchApiAllowed: fetch() and XHR of the page's own scheme work.
    LocalAccessAllowed is left out: an app:// page has no business reading file:// URLs."""
    scheme = QWebEngineUrlScheme(name.encode())
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme | QWebEngineUrlScheme.Flag.CorsEnabled
                    | QWebEngineUrlScheme.Flag.FetchApiAllowed)
    QWebEngineUrlScheme.registerScheme(scheme)


def main():
    parser = UsageRefusingParser(prog="hybrid-app-pyqt", description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the pkgctl store to serve")
    parser.add_argument("--scheme", default="app")
    parser.add_argument("--upstream", help="origin for files no package has (default: https://HOST)")
    parser.add_argument("--ca-file", help="the CAs trusted for the origin")
    parser.add_argument("--offline", action="store_true", help="never ask the origin")
    parser.add_argument("--dump-dom", action="store_true", help="print the DOM after --wait-for holds, then exit")
    parser.add_argument("--wait-for", default="true", help="a JavaScript expression to wait for")
    parser.add_argument("--timeout", type=int, default=30, help="seconds to allow")
    parser.add_argument("url")
    arguments = parser.parse_args()

    # A run stuck past its time says where (every thread's Python stack) and exits, whatever the
    # state of Qt's event loop, whose timer below would otherwise have ended it.
    faulthandler.dump_traceback_later(arguments.timeout + 15, exit=True)
    register_scheme(arguments.scheme)
    application = QApplication([sys.argv[0]])
    try:
        resolver = pkgctl_resolver.Resolver(arguments.root, upstream=arguments.upstream, ca_file=arguments.ca_file,
                                            offline=arguments.offline, explicit_consumption=True, window=WINDOW)
    except OSError as error:
        log_line(str(error))
        return 1
    profile = QWebEngineProfile()  # off the record: nothing of one run is kept for the next
    handler = SchemeHandler(resolver, profile)
    profile.installUrlSchemeHandler(arguments.scheme.encode(), handler)
    page = LoggingPage(profile)
    outcome = {"status": None}

    def finish(status):
        if outcome["status"] is None:
            outcome["status"] = status
            application.exit(status)

    def poll(remaining):
        if remaining <= 0:
            log_line(f"timed out after {arguments.timeout} s waiting for {arguments.wait_for}")
            return finish(1)
        page.runJavaScript(f"!!({arguments.wait_for})",
                           lambda ready: dump() if ready else QTimer.singleShot(100, lambda: poll(remaining - 1)))

    def dump():
        def printed(html):
            if arguments.dump_dom:
                sys.stdout.write(html + "\n")
                sys.stdout.flush()
            finish(0)
        page.runJavaScript("document.documentElement.outerHTML", printed)

    def loaded(ok):
        if not ok:
            log_line(f"load failed: {arguments.url}")
            return finish(1)
        poll(arguments.timeout * 10)

    page.loadFinished.connect(loaded)
    QTimer.singleShot(arguments.timeout * 1000 + 5000, lambda: finish(1))
    page.load(QUrl(arguments.url))
    status = application.exec()
    page.deleteLater()
    del page
    for _ in range(10):  # let Chromium destroy the jobs it still holds
        application.processEvents()
    log_line(f"exit started={handler.started} stopped={handler.stopped} late={handler.late} live={handler.live} "
             f"peak-held-kb={handler.peak_held // 1024} window-kb={WINDOW // 1024}")
    resolver.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
