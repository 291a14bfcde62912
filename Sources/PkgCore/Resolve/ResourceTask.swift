/// One request in flight, as a ``Resolver`` sees it: modelled on
/// `WKURLSchemeTask`. The resolver calls, in this order and never after
/// ``Resolver/stop(_:)`` has returned for the task:
///
/// 1. ``didReceive(_:)-(ResourceResponse)`` once (unless the task fails before an answer),
/// 2. ``didReceive(_:)-(UnsafeRawBufferPointer)`` zero or more times,
/// 3. exactly one of ``didFinish()`` or ``didFail(_:)``.
///
/// Calls to one task never overlap. Where they run is the host's choice, made
/// per task with ``TaskDelivery`` at ``Resolver/start(_:delivery:)``: on the
/// resolver's threads (``TaskDelivery/direct``: the caller of `start` for the
/// response of a local hit, a read queue for local data, the upstream thread
/// for origin answers), or on the host's own thread through a
/// ``CallbackExecutor`` (a main queue, a GLib main loop, an event loop), where
/// the stopped check is made too. Keep callbacks short: copy the bytes and
/// return. A task may call `stop` on itself from inside a callback. A task that
/// queues the bytes rather than using them at once says so with
/// ``TaskDelivery/Consumption/explicit`` and reports ``Resolver/consumed(_:by:)``,
/// so a slow consumer holds back the source instead of the resolver buffering.
///
/// ```swift
/// final class Collector: ResourceTask {
///     let request: ResourceRequest
///     init(_ request: ResourceRequest) { self.request = request }
///     func didReceive(_ response: ResourceResponse) { print(response.status) }
///     func didReceive(_ data: UnsafeRawBufferPointer) { /* copy the bytes */ }
///     func didFinish() {}
///     func didFail(_ error: PkgError) { print(error) }
/// }
/// ```
public protocol ResourceTask: AnyObject, Sendable {
    /// The request this task asks for. Read once, by ``Resolver/start(_:delivery:)``.
    var request: ResourceRequest { get }
    /// The response head: status and headers.
    func didReceive(_ response: ResourceResponse)
    /// A chunk of the body; the bytes are valid only during the call.
    func didReceive(_ data: UnsafeRawBufferPointer)
    /// The body is complete.
    func didFinish()
    /// The request failed: refused (``PkgError/Code/invalidArgument``), the
    /// origin unreachable or cut (``PkgError/Code/transferFailed``), a read error.
    func didFail(_ error: PkgError)
}
