"""Descriptors, pipes, sockets and memory of this process, from /proc (the exit line's numbers)."""
from __future__ import annotations

import os
from typing import NamedTuple


class ProcessStats(NamedTuple):
    descriptors: int
    pipes: int
    sockets: int
    resident_kib: int
    peak_resident_kib: int


def _status_kib(status: str, field: str) -> int:
    """The value of `field` ("VmRSS") in /proc/self/status, in KiB; -1 if absent."""
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return int(value.split()[0])
    return -1


def process_stats_now() -> ProcessStats:
    """The process's open descriptors (pipes and sockets among them), VmRSS and VmHWM now."""
    descriptors = pipes = sockets = 0
    for entry in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{entry}")
        except OSError:  # the listing's own descriptor, closed by now
            continue
        descriptors += 1
        pipes += target.startswith("pipe:")
        sockets += target.startswith("socket:")
    with open("/proc/self/status") as file:
        status = file.read()
    return ProcessStats(descriptors, pipes, sockets, _status_kib(status, "VmRSS"), _status_kib(status, "VmHWM"))
