"""Results of the C ABI as an IntEnum, and the exceptions that carry them."""
from __future__ import annotations

import enum
from typing import Optional


class Result(enum.IntEnum):
    """How a task ended or a call went (enum pkgctl_result)."""
    OK = 0
    INVALID = 1
    TRANSFER = 2
    OFFLINE = 3
    OTHER = 4


class ResolverError(Exception):
    """A task or call that failed; `result` says how, `str()` is the library's one-line message."""

    def __init__(self, message: str, result: Result = Result.OTHER):
        super().__init__(message)
        self.result = result

    @staticmethod
    def of(result: int, message: Optional[str]) -> "ResolverError":
        """The exception of the class for `result`, with `message`."""
        kind = {Result.OFFLINE: OfflineError, Result.TRANSFER: TransferError,
                Result.INVALID: RefusedError}.get(Result(result), ResolverError)
        return kind(message or Result(result).name.lower(), Result(result))


class OfflineError(ResolverError):
    """Offline, and no package or cached answer had the resource (Result.OFFLINE)."""


class TransferError(ResolverError):
    """The origin could not be reached or its transfer failed (Result.TRANSFER)."""


class RefusedError(ResolverError, ValueError):
    """The library refused the arguments: a URL outside every route, a path that leaves it
    (Result.INVALID). A ValueError too."""

    def __init__(self, message: str, result: Result = Result.INVALID):
        super().__init__(message, result)
