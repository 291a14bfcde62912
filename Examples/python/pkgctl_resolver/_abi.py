"""The C ABI (pkgctl/resolver.h) declared for ctypes, and the library, loaded on first use."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Optional


class Header(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class Options(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("store_root", ctypes.c_char_p), ("upstream", ctypes.c_char_p),
                ("ca_file", ctypes.c_char_p), ("offline", ctypes.c_int32), ("explicit_consumption", ctypes.c_int32),
                ("window", ctypes.c_uint64)]


RESPONSE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(Header), ctypes.c_size_t)
DATA = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
END = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p)


class Callbacks(ctypes.Structure):
    _fields_ = [("response", RESPONSE), ("data", DATA), ("end", END)]


class PlanStruct(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("source", ctypes.c_int32), ("resource_class", ctypes.c_int32)]


class Counters(ctypes.Structure):
    """The resolver's counters (pkgctl_counters, filled by pkgctl_resolver_counters_get)."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("tasks_started", ctypes.c_uint64), ("tasks_succeeded", ctypes.c_uint64),
                ("tasks_failed", ctypes.c_uint64), ("tasks_stopped", ctypes.c_uint64),
                ("body_bytes", ctypes.c_uint64), ("callbacks", ctypes.c_uint64)]


def _load() -> ctypes.CDLL:
    path = os.environ.get("PKGCTL_RESOLVER_LIBRARY") or ctypes.util.find_library("pkgctl-resolver")
    if not path:
        raise OSError("libpkgctl-resolver not found (set PKGCTL_RESOLVER_LIBRARY)")
    lib = ctypes.CDLL(path)
    lib.pkgctl_resolver_create.restype = ctypes.c_void_p
    lib.pkgctl_resolver_create.argtypes = [ctypes.POINTER(Options), ctypes.c_char_p, ctypes.c_size_t]
    lib.pkgctl_resolver_destroy.argtypes = [ctypes.c_void_p]
    lib.pkgctl_resolver_fd.restype = ctypes.c_int
    lib.pkgctl_resolver_fd.argtypes = [ctypes.c_void_p]
    lib.pkgctl_resolver_dispatch.restype = ctypes.c_size_t
    lib.pkgctl_resolver_dispatch.argtypes = [ctypes.c_void_p]
    lib.pkgctl_task_start.restype = ctypes.c_void_p
    lib.pkgctl_task_start.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Header),
                                      ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Callbacks),
                                      ctypes.c_void_p]
    lib.pkgctl_task_consumed.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    lib.pkgctl_task_stop.argtypes = [ctypes.c_void_p]
    lib.pkgctl_resolver_counters_get.restype = ctypes.c_size_t
    lib.pkgctl_resolver_counters_get.argtypes = [ctypes.c_void_p, ctypes.POINTER(Counters)]
    lib.pkgctl_resolver_plan.restype = ctypes.c_int32
    lib.pkgctl_resolver_plan.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Header),
                                         ctypes.c_size_t, ctypes.POINTER(PlanStruct)]
    lib.pkgctl_resolver_report_launch_problem.restype = ctypes.c_int32
    lib.pkgctl_resolver_report_launch_problem.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
    for name in ("pkgctl_source_name", "pkgctl_resource_class_name"):
        getattr(lib, name).restype = ctypes.c_char_p
        getattr(lib, name).argtypes = [ctypes.c_int32]
    return lib


_lib: Optional[ctypes.CDLL] = None


def library() -> ctypes.CDLL:
    """The library, loaded on first use."""
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib
