import CCurl

/// Process-wide libcurl setup and error text.
enum Curl {
    /// The result of the one `curl_global_init` call, made on first use (Swift runs a
    /// global's initialiser exactly once, thread-safely).
    private static let globalInitResult: CURLcode = pkg_curl_global_init()

    /// Makes sure `curl_global_init` has run; throws if it failed.
    static func initialize() throws {
        let code = globalInitResult
        guard code == CURLE_OK else {
            throw PkgError(.transferFailed, "libcurl initialisation failed: \(text(of: code))")
        }
    }

    /// libcurl's short text for `code`, e.g. "Couldn't connect to server".
    static func text(of code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }

    /// One line for a failed transfer: libcurl's text for `code`, with the detail from the
    /// handle's error buffer when that says more. A detail that already ends in the text
    /// is the whole account ("Failed to connect to 127.0.0.1 port 8443 after 1001 ms:
    /// Timeout was reached" says which step timed out); otherwise it follows the text
    /// ("Timeout was reached: Operation too slow. Less than 1 bytes/sec ...").
    static func describe(_ code: CURLcode, detail: String) -> String {
        let text = text(of: code)
        let detail = String(Substring(detail).trimmingSpaces)
        if detail.isEmpty || detail == text { return text }
        if detail.contains(text) { return detail }
        return "\(text): \(detail)"
    }
}
