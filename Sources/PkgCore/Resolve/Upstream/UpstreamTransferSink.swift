/// What an ``UpstreamTransfer`` reports to, on the loop thread.
protocol UpstreamTransferSink: AnyObject {
    /// The origin's status and headers (hop-by-hop ones dropped). Return false to abort.
    func transferReceived(status: Int, headers: [(name: String, value: String)]) -> Bool
    /// Whether the next chunk of body may come now; false pauses the transfer
    /// until ``CurlMultiLoop/resume(_:)``.
    func transferAdmitsBody() -> Bool
    /// A chunk of body. Return false to abort the transfer.
    func transferReceived(_ data: UnsafeRawBufferPointer) -> Bool
    /// The transfer ended; `error` is nil on success.
    func transferCompleted(error: PkgError?, bodyBytes: Int64)
    /// The transfer was cancelled before it ended.
    func transferCancelled()
}
