"""The app's log: one line per event on stderr, as the C++ and WebKitGTK apps write it."""
import sys


def log_line(text):
    sys.stderr.write("hybrid-app: " + text + "\n")
    sys.stderr.flush()
