import FoundationEssentials
import PkgCore

extension ConfigLayers {
    /// The URL that setting `key` holds (`update.manifest`, `update.report-url`,
    /// `update.prefetch-upstream`); nil when no layer sets it. Refuses at once, naming the
    /// setting and where it came from, a value that is not an absolute http or https URL
    /// (or, with `allowingFile`, a file URL), so a missing scheme is not fetched and then
    /// blamed on something else; a value that lacks only its scheme gets the fix suggested:
    ///
    ///     --manifest '127.0.0.1:8090/manifest.json' is not an http(s) URL (did you mean 'http://127.0.0.1:8090/manifest.json'?)
    func url(_ key: String, allowingFile: Bool = false) throws -> String? {
        guard let text = try string(key) else { return nil }
        let schemes = allowingFile ? ["http", "https", "file"] : ["http", "https"]
        if let separator = text.firstRange(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            let rest = text[separator.upperBound...]
            let hasHost = scheme == "file" || !(rest.isEmpty || rest.hasPrefix("/"))
            if schemes.contains(scheme), hasHost, URL(string: text) != nil { return text }
        }
        let kinds = allowingFile ? "an http(s) or file URL" : "an http(s) URL"
        let suggestion = Self.schemeAdded(to: text, allowingFile: allowingFile).map { " (did you mean '\($0.escapedForMessage)'?)" }
        throw invalid(key, "'\(text.escapedForMessage)' is not \(kinds)" + (suggestion ?? ""))
    }

    /// `text` with the scheme it seems to lack: `file://` before an absolute path (when file
    /// URLs are allowed), `http://` before HOST[:PORT][/PATH]; nil when it is neither.
    private static func schemeAdded(to text: String, allowingFile: Bool) -> String? {
        if text.hasPrefix("/") { return allowingFile && URL(string: "file://" + text) != nil ? "file://" + text : nil }
        let authority = text.prefix { $0 != "/" }
        let hostAndPort = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = hostAndPort.first, !host.isEmpty, !host.contains("@"), hostAndPort.count <= 2,
              hostAndPort.dropFirst().allSatisfy({ !$0.isEmpty && allASCIIDigits($0.utf8) }),
              URL(string: "http://" + text)?.host != nil else { return nil }
        return "http://" + text
    }
}
