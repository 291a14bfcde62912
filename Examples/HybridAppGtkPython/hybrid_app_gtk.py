#!/usr/bin/python3
"""hybrid-app-gtk-python: a WebKitGTK window on an app:// URL served from pkgctl's store through
the Python binding (Examples/python) and its GLib helper: the PyGObject twin of Examples/HybridAppC,
with its command line, log lines and exit line."""
from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import List, NoReturn, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))

import gi  # noqa: E402

gi.require_version("Gtk", "3.0")
gi.require_version("Soup", "3.0")
gi.require_version("WebKit2", "4.1")

from gi.repository import Gtk  # noqa: E402

from app_log import log_line  # noqa: E402
from app_window import AppWindow, Report  # noqa: E402
from scheme_handler import SchemeHandler, create_resolver  # noqa: E402

EXIT_USAGE = 64  # EX_USAGE: the command line was wrong


class _Parser(argparse.ArgumentParser):
    """Refuses a wrong command line with one line of ours and the usage status."""

    def error(self, message: str) -> NoReturn:
        log_line(f"{message} (see --help)")
        sys.exit(EXIT_USAGE)


def _positive(text: str) -> int:
    """A whole number; smaller than 1 counts as 1, as in the other apps."""
    try:
        return max(1, int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a whole number, not {text}") from None


def _arguments(argv: List[str]) -> argparse.Namespace:
    parser = _Parser(prog="hybrid-app-gtk-python", description=__doc__.splitlines()[0].partition(": ")[2])
    parser.add_argument("--root", metavar="DIR", help="the pkgctl store to serve (as `pkgctl update --root`)")
    parser.add_argument("--scheme", default="app", help="the custom scheme to register (default: app)")
    parser.add_argument("--upstream", metavar="URL", help="origin for files no package has (default: https://HOST)")
    parser.add_argument("--ca-file", metavar="PEM", help="the CAs trusted for the origin")
    parser.add_argument("--offline", action="store_true", help="never ask the origin: a file no package has fails")
    parser.add_argument("--media-plugin", metavar="DIR",
                        help="the folder of libgstpkgctl.so (Examples/gst-pkgctl): <video>/<audio> play from the scheme")
    parser.add_argument("--dump-dom", action="store_true", help="print the page's DOM after the load event, then exit")
    parser.add_argument("--screenshot", metavar="PNG", help="write a PNG of the rendered page, then exit")
    parser.add_argument("--wait-for", metavar="JS", help="an expression to wait for before --dump-dom/--screenshot")
    parser.add_argument("--loads", type=_positive, default=1, help="loads to report before exiting; SIGHUP reloads")
    parser.add_argument("--timeout", type=_positive, default=30, help="seconds to allow for --dump-dom/--screenshot")
    parser.add_argument("url", nargs="?")
    arguments = parser.parse_args(argv)
    if not arguments.root:
        parser.error("missing --root DIR")
    if not arguments.url:
        parser.error("missing the URL to open")
    return arguments


def _add_to_list(name: str, value: str, separator: str, first: bool) -> None:
    """Prepends (or appends) `value` to the list in the environment variable `name`."""
    old = os.environ.get(name)
    os.environ[name] = value if not old else separator.join([value, old] if first else [old, value])


def _enable_media(plugin_dir: str, scheme: str, root: str, upstream: Optional[str], ca_file: Optional[str],
                  offline: bool) -> None:
    """Media on the app's scheme (Examples/gst-pkgctl). WebKit's web process, where GStreamer plays
    media, inherits this environment: its playbin finds pkgctlsrc in `plugin_dir`, may use URLs of
    `scheme`, and the element reads the store with this app's settings. Before any web view exists."""
    if not os.access(os.path.join(plugin_dir, "libgstpkgctl.so"), os.R_OK):
        _Parser().error(f"--media-plugin: no libgstpkgctl.so in {plugin_dir}")
    _add_to_list("GST_PLUGIN_PATH", os.path.abspath(plugin_dir), ":", True)
    _add_to_list("WEBKIT_GST_ALLOWED_URI_PROTOCOLS", scheme, ",", False)
    os.environ.update(PKGCTL_MEDIA_SCHEMES=scheme, PKGCTL_MEDIA_ROOT=os.path.abspath(root),
                      PKGCTL_MEDIA_OFFLINE="1" if offline else "0")
    for name, value in (("PKGCTL_MEDIA_UPSTREAM", upstream), ("PKGCTL_MEDIA_CA_FILE", ca_file)):
        if value:
            os.environ[name] = value
        else:
            os.environ.pop(name, None)


def main() -> int:
    arguments = _arguments(sys.argv[1:])
    if arguments.media_plugin:
        _enable_media(arguments.media_plugin, arguments.scheme, arguments.root, arguments.upstream,
                      arguments.ca_file, arguments.offline)
    # Python ignores SIGPIPE already (a dropped body stream is BrokenPipeError). A launcher may hand
    # down a blocked mask: SIGHUP (reload), SIGINT and SIGTERM must reach the loop.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP, signal.SIGINT, signal.SIGTERM})
    Gtk.init(None)
    try:
        resolver = create_resolver(arguments.root, arguments.upstream, arguments.ca_file, arguments.offline)
    except OSError as error:
        log_line(str(error))
        return 1
    report = Report(arguments.dump_dom, arguments.screenshot, arguments.wait_for, arguments.loads)
    AppWindow(SchemeHandler(resolver), arguments.scheme, report, arguments.url, arguments.timeout)
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
