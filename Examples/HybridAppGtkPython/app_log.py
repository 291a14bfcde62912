"""The app's log, as the C app writes it: one `hybrid-app: ` line per event on stderr."""
from __future__ import annotations

import sys

_MESSAGE_LIMIT = 120


def log_line(text: str) -> None:
    """Writes `hybrid-app: TEXT` and a newline to stderr, at once."""
    sys.stderr.write("hybrid-app: " + text + "\n")
    sys.stderr.flush()


def log_output(text: str) -> None:
    """Writes `text` to stdout, at once (the DOM --dump-dom prints)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def log_escaped(text: str) -> str:
    """`text` for a log line: control bytes as `\\u{x}`, cut after 120 bytes with the length."""
    raw = text.encode(errors="surrogateescape")
    shown = bytearray()
    for index, byte in enumerate(raw):
        if index == _MESSAGE_LIMIT:
            shown += f"…({len(raw)} bytes)".encode()
            break
        shown += f"\\u{{{byte:x}}}".encode() if byte < 0x20 or byte == 0x7F else bytes([byte])
    return shown.decode(errors="replace")
