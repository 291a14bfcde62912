"""pkgctl's resolver for Python hosts, through its C ABI (pkgctl/resolver.h) with ctypes.

Standard library only (PyGObject for Resolver.attach alone). Callbacks run on the thread that
calls Resolver.dispatch(); wait for Resolver.fileno() to be readable and call it:

    with Resolver("/var/lib/pkgctl") as resolver:
        print(resolver.fetch("app://www.example.com/app/").status)      # a script
        task = resolver.start("GET", url, on_response=..., on_data=..., on_end=...)
        while not done:
            select.select([resolver], [], [], 10)
            resolver.dispatch()
        task.stop()            # exactly once per task, after its end or to cancel it

After Task.stop() returns on the dispatching thread (inside a callback too), no callback of
that task runs; from another thread it waits for one in progress, and none starts after it.
The library is found by ctypes.util.find_library("pkgctl-resolver"), or PKGCTL_RESOLVER_LIBRARY.
"""
from ._abi import Counters
from .errors import OfflineError, RefusedError, ResolverError, Result, TransferError
from .headers import Headers
from .resolver import Plan, Resolver, Response, Task

# The results as module constants, as the binding named them before Result.
OK, ERR_INVALID, ERR_TRANSFER, ERR_OFFLINE, ERR_OTHER = (Result.OK, Result.INVALID, Result.TRANSFER,
                                                         Result.OFFLINE, Result.OTHER)

__all__ = ["Counters", "Headers", "OfflineError", "Plan", "RefusedError", "Resolver", "ResolverError", "Response",
           "Result", "Task", "TransferError", "OK", "ERR_INVALID", "ERR_TRANSFER", "ERR_OFFLINE", "ERR_OTHER"]
