import Glibc

/// An immutable snapshot of every active package's routes, rebuilt when a
/// `current` link changes. Longest prefix wins; a prefix matches whole segments.
final class RouteTable: Sendable {
    /// Every route, in package-name then manifest order.
    let routes: [Route]
    let byHost: [String: [Route]]
    let mounts: [PackageMount]
    /// mtime of `ROOT/packages` when the snapshot was taken (a package added or removed changes it).
    let packagesStamp: Int64

    init(routes: [Route], mounts: [PackageMount], packagesStamp: Int64) {
        var table: [String: [Route]] = [:]
        for route in routes { table[route.host, default: []].append(route) }
        for host in table.keys { table[host]!.sort { $0.prefix.utf8.count > $1.prefix.utf8.count } }
        byHost = table
        self.routes = routes
        self.mounts = mounts
        self.packagesStamp = packagesStamp
    }

    static let empty = RouteTable(routes: [], mounts: [], packagesStamp: -1)

    /// Whether every package's `current` still names the version mounted here.
    var isCurrent: Bool { mounts.allSatisfy { $0.isCurrent() } }

    /// Reads the active packages of `store` and opens their version directories.
    static func load(from store: PackageStore) throws -> RouteTable {
        let stamp = FileSystem.modificationStamp(store.layout.packages)
        var routes: [Route] = []
        var mounts: [PackageMount] = []
        for package in try store.activePackages() {
            let mount = try PackageMount(name: package.name, version: package.version, directory: package.directory,
                                         layout: store.layout,
                                         spaFallback: package.spaFallback, immutableGlobs: package.immutable,
                                         declaredHeaders: package.headers,
                                         recordsLaunches: Self.isOnTrialByLaunches(package, in: store))
            mounts.append(mount)
            for text in package.routes {
                guard let route = PackageRoute(text) else {
                    throw PkgError(.malformedManifest, "package \(package.name) \(package.version): route "
                                   + "'\(text.escapedForMessage)' must be HOST or HOST/PATH without a scheme")
                }
                routes.append(Route(host: route.host, prefix: route.prefix, mount: mount))
            }
        }
        return RouteTable(routes: routes, mounts: mounts, packagesStamp: stamp)
    }

    /// Whether the active `package` is on trial by launches: the trial is written before `current`
    /// switches, so a version mounted after its switch finds it. A trial file that does not read
    /// records nothing (`status` names it).
    private static func isOnTrialByLaunches(_ package: InstalledPackage, in store: PackageStore) -> Bool {
        guard let trial = try? store.trial(of: package.name) else { return false }
        return trial.confirmedBy == .launches && trial.version == package.version
    }

    /// The host key routes of `host` are filed under: `host` itself, else its name without
    /// the port (digits after the last `:`; `example.com:junk` has no port and no route).
    private func routedHost(_ host: String) -> String? {
        if byHost[host] != nil { return host }
        let utf8 = host.utf8
        if let colon = utf8.lastIndex(of: UInt8(ascii: ":")), !host.hasSuffix("]") {
            let port = utf8[utf8.index(after: colon)...]
            guard allASCIIDigits(port) else { return nil }
            let name = String(host[..<colon])
            if byHost[name] != nil { return name }
        }
        return nil
    }

    /// Whether some route serves `host` (with or without its port).
    func hasRoutes(host: String) -> Bool { routedHost(host) != nil }

    /// The route for `host` and the decoded `path`, or nil when no package serves it.
    func match(host: String, path: String) -> RouteMatch? {
        guard let key = routedHost(host), let candidates = byHost[key] else { return nil }
        let pathBytes = path.utf8
        for route in candidates {
            let prefixCount = route.prefix.utf8.count
            guard pathBytes.starts(with: route.prefix.utf8) else { continue }
            if pathBytes.count > prefixCount,
               pathBytes[pathBytes.index(pathBytes.startIndex, offsetBy: prefixCount)] != UInt8(ascii: "/") {
                continue
            }
            var relative = pathBytes.dropFirst(prefixCount)
            while relative.first == UInt8(ascii: "/") { relative = relative.dropFirst() }
            let relativePath: String
            if relative.isEmpty {
                if pathBytes.last != UInt8(ascii: "/") {
                    return RouteMatch(route: route, relativePath: "index.html", lacksTrailingSlash: true)
                }
                relativePath = "index.html"
            } else if relative.last == UInt8(ascii: "/") {
                relativePath = String(Substring(relative)) + "index.html"
            } else {
                relativePath = String(Substring(relative))
            }
            return RouteMatch(route: route, relativePath: relativePath)
        }
        return nil
    }

    /// Where browsing `host` starts: the first of its routes' prefix with a trailing slash,
    /// percent-encoded (`/app/`); nil when a route serves the host's root or none names the host.
    func entryPath(host: String) -> String? {
        guard let key = routedHost(host), let candidates = byHost[key],
              !candidates.contains(where: { $0.prefix.isEmpty }),
              let first = routes.first(where: { $0.host == key }) else { return nil }
        return RequestPath.encode(first.prefix) + "/"
    }
}
