/// The task a prefetch starts on its ``Resolver`` for one URL: it counts and discards the
/// body and reports its end once, so the fetch takes the resolver's normal path
/// (coalescing, write-through, pacing) like any host's request.
final class PrefetchTask: ResourceTask, @unchecked Sendable {
    let request: ResourceRequest
    /// The URL's position in the prefetch's list.
    let index: Int
    /// Whether the plan made at start writes the answer through.
    let writesThrough: Bool
    private let state = PosixMutex<(response: ResourceResponse?, bytes: Int64, error: PkgError?)>((nil, 0, nil))
    private let ended: @Sendable (PrefetchTask) -> Void

    init(_ request: ResourceRequest, index: Int, writesThrough: Bool, ended: @escaping @Sendable (PrefetchTask) -> Void) {
        self.request = request
        self.index = index
        self.writesThrough = writesThrough
        self.ended = ended
    }

    /// The response head, the body's byte count and the failure (read once the task ended or was stopped).
    var result: (response: ResourceResponse?, bytes: Int64, error: PkgError?) {
        state.withLock { $0 }
    }

    func didReceive(_ response: ResourceResponse) {
        state.withLock { $0.response = response }
    }

    func didReceive(_ data: UnsafeRawBufferPointer) {
        state.withLock { $0.bytes += Int64(data.count) }
    }

    func didFinish() {
        ended(self)
    }

    func didFail(_ error: PkgError) {
        state.withLock { $0.error = error }
        ended(self)
    }
}
