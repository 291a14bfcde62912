import Logging
import PkgCore

/// What a 404 says about a path outside every route of a host whose routes all sit under a
/// prefix: a build made for `/` but served under `/app/` asks for `/assets/index.js`, which no
/// route holds, and its page renders blank. The advice names the base path the build likely
/// needs; every such 404 says it, and the log once per route prefix.
final class BasePathAdvice: Sendable {
    /// `HOST/PREFIX/` of the routes the log has already advised about.
    private let advisedRoutes = PosixMutex(Set<String>())
    private let log = Logger(label: "pkgctl.serve")

    /// The advice for `request`, which is answered 404, or nil when a route holds its path, or
    /// when its host has a route at its root or none. `referer`, the URL of the page that asked,
    /// picks the route among several with a prefix (else the host's first one is named).
    func advice(for request: ResourceRequest, referer: String?, resolver: PkgCore.Resolver) -> String? {
        guard resolver.routePath(host: request.host, rawPath: request.rawPath) == nil,
              let entry = resolver.entryPath(forHost: request.host) else { return nil }
        let base = referer.flatMap(Self.path(of:)).flatMap { resolver.routePath(host: request.host, rawPath: $0) }
            ?? entry
        let advice = "no route of \(request.host.escapedForMessage) holds \(String(request.rawPath).escapedForMessage): "
            + "the build's base path likely needs to be \(base) (Vite base, webpack output.publicPath)"
        if advisedRoutes.withLock({ $0.insert(request.host + base).inserted }) {
            log.warning("\(advice); said once for \(request.host.escapedForMessage)\(base)")
        }
        return advice
    }

    /// The path of an absolute URL (`/app/` of `http://localhost:8080/app/?q`); nil when it has none.
    private static func path(of url: String) -> Substring? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let authority = url[colon...].dropFirst(3)
        guard let slash = authority.firstIndex(of: "/") else { return nil }
        return authority[slash...].prefix { $0 != "?" && $0 != "#" }
    }
}
