/// One route of a manifest entry, parsed once: the host it serves and the path
/// prefix under it (`""` or `/app`, no trailing slash).
///
/// ```swift
/// let route = PackageRoute("WWW.example.com/app/")  // host "www.example.com", prefix "/app"
/// ```
public struct PackageRoute: Sendable, Hashable {
    /// The host, lower case, with its port when the route gives one (`www.example.com`, `localhost:8080`).
    public let host: String
    /// The path prefix, `""` or starting with `/` and without a trailing slash (`/app`).
    public let prefix: String

    /// Parses `text` (`HOST` or `HOST/PATH`); nil when it is empty, starts with `/` or has a scheme.
    public init?(_ text: String) {
        guard !text.isEmpty, !text.hasPrefix("/"), !text.contains("://") else { return nil }
        var host = Substring(text)
        var prefix = Substring("")
        if let slash = text.firstIndex(of: "/") {
            host = text[..<slash]
            prefix = text[slash...]
        }
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        self.host = host.lowercased()
        self.prefix = String(prefix)
    }
}
