extension Downloader {
    /// The body of `url`, asked for with no validators (``fetch(_:validators:maxBytes:)``): a 304
    /// to such a request stands for no document and is refused (``unaskedNotModified(_:)``).
    func fetchBody(_ url: String, maxBytes: Int) throws -> [UInt8] {
        guard case .fetched(let body, _) = try fetch(url, validators: nil, maxBytes: maxBytes) else {
            throw Self.unaskedNotModified(url)
        }
        return body
    }

    /// The error for a 304 to a request that asked nothing: it stands for no document.
    static func unaskedNotModified(_ url: String) -> PkgError {
        PkgError(.httpStatus, "GET \(url): HTTP 304 Not Modified to a request that was not conditional", httpStatus: 304)
    }
}
