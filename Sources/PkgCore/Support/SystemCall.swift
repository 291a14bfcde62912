import Glibc

/// The text of an `errno` value, e.g. "No space left on device".
func errnoDescription(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// Builds a filesystem error for the failed `operation` on `path` from the current `errno`.
package func fileSystemError(_ operation: String, _ path: String, errno code: Int32 = errno) -> PkgError {
    let kind: PkgError.Code = (code == ENOSPC || code == EDQUOT) ? .insufficientSpace : .fileSystem
    return PkgError(kind, "\(operation) \(path): \(errnoDescription(code))", errno: code)
}

/// Retries a system call while it fails with `EINTR`; returns its result.
@discardableResult
func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
