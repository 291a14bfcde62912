/// How the resolver hands one task its callbacks: on which thread, and how many
/// body bytes may wait for the host before the resolver holds back the source.
///
/// - **Thread.** ``direct`` calls the task on the resolver's own threads (the
///   caller of `start` for a local response head, a read queue for local data,
///   the upstream thread for origin answers). ``on(_:window:consumption:)``
///   calls it through a ``CallbackExecutor`` instead, with the stopped-task
///   check made there.
/// - **Flow control.** At most ``window`` body bytes (plus one chunk) are
///   delivered and not yet consumed; past that, local reads wait and the origin
///   transfer is paused (libcurl stops reading the socket, so TCP holds back the
///   origin) until the host has consumed half of them. A transfer shared by
///   several tasks goes at the pace of its slowest live reader; a write-through
///   whose readers all left runs on at full speed, so the overlay entry ends whole
///   or not at all.
public struct TaskDelivery: Sendable {
    /// When delivered bytes count as consumed.
    public enum Consumption: Sendable {
        /// When ``ResourceTask/didReceive(_:)-(UnsafeRawBufferPointer)`` returns:
        /// for a host that writes the bytes on synchronously.
        case onReturn
        /// When the host says so with ``Resolver/consumed(_:by:)``: for a host
        /// that queues the bytes (a socket's send buffer, a web view's stream).
        case explicit
    }

    /// The executor callbacks run on; nil for the resolver's threads.
    public let executor: (any CallbackExecutor)?
    /// Body bytes that may be delivered and not consumed, at most (at least 1).
    public let window: Int
    /// When delivered bytes count as consumed.
    public let consumption: Consumption

    /// The default window: 1 MiB.
    public static let defaultWindow = 1 << 20

    /// Callbacks on the resolver's threads, consumed on return.
    public static let direct = TaskDelivery(executor: nil, window: defaultWindow, consumption: .onReturn)

    /// Callbacks on the resolver's threads; bytes consumed when the host says so.
    public static func direct(window: Int = defaultWindow, consumption: Consumption) -> TaskDelivery {
        TaskDelivery(executor: nil, window: window, consumption: consumption)
    }

    /// Callbacks on `executor`.
    public static func on(_ executor: any CallbackExecutor, window: Int = defaultWindow,
                          consumption: Consumption = .onReturn) -> TaskDelivery {
        TaskDelivery(executor: executor, window: window, consumption: consumption)
    }

    /// A delivery; `window` is raised to at least 1.
    public init(executor: (any CallbackExecutor)?, window: Int, consumption: Consumption) {
        self.executor = executor
        self.window = max(1, window)
        self.consumption = consumption
    }
}
