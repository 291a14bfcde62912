import Foundation

/// Runs `body` on a new thread of its own and awaits its result, so blocking work
/// (`Downloader`'s libcurl calls) stays off Swift's cooperative thread pool.
///
/// ```swift
/// let result = try await onDedicatedThread { try downloader.fetch(url, validators: nil) }
/// ```
func onDedicatedThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = "test-blocking-work"
        thread.start()
    }
}
