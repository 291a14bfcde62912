/// One route of a manifest entry, parsed once: the host it serves and the path
/// prefix under it (`""` or `/app`, no trailing slash).
///
/// ```swift
/// let route = PackageRoute("WWW.example.com/app/")  // host "www.example.com", prefix "/app"
/// ```
package struct PackageRoute: Sendable, Hashable {
    /// The host, lower case, with its port when the route gives one (`www.example.com`, `localhost:8080`).
    package let host: String
    /// The path prefix, `""` or starting with `/` and without a trailing slash (`/app`).
    package let prefix: String

    /// Parses `text` (`HOST` or `HOST/PATH`); nil when it is empty, starts with `/` or has a scheme.
    package init?(_ text: String) {
        // Split at the byte '/', as paths are: a '/' before a combining mark still separates.
        let slash = UInt8(ascii: "/")
        guard let first = text.utf8.first, first != slash, !text.contains("://") else { return nil }
        var host = Substring(text).utf8
        var prefix = Substring("").utf8
        if let separator = text.utf8.firstIndex(of: slash) {
            host = Substring(text).utf8[..<separator]
            prefix = Substring(text).utf8[separator...]
        }
        while prefix.last == slash { prefix = prefix.dropLast() }
        self.host = Substring(host).lowercased()
        self.prefix = String(Substring(prefix))
    }
}
