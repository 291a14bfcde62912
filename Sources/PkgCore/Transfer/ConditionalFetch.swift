/// What ``Downloader/fetch(_:validators:)`` found at a URL.
public enum ConditionalFetch: Sendable {
    /// The origin answered 304: what was stored under the given validators is current.
    case notModified
    /// The origin sent a body, with the validators to store for the next request.
    case fetched(body: [UInt8], validators: HTTPValidators)
}
