import PkgCore
import Glibc

/// A store under /tmp laid out as `install` + `activate` leave it, made once per
/// fuzzing process and removed at exit: package `demo` 1.0.0 routed at
/// `www.example.com/app` and `static.example.com` (single-page-app fallback
/// `index.html`, a precompressed `app.js`, a file larger than the resolver keeps
/// in memory), and package `docs` 2.0.0 at `www.example.com/app/docs` and `localhost:8080`.
public enum FixtureStore {
    /// The store's root directory.
    public static let root: String = make()

    /// A resolver over the store with an upstream on a port nothing listens on;
    /// the targets only plan and answer locally, so nothing is ever fetched.
    public static let resolver: Resolver = {
        do {
            return try Resolver(store: PackageStore(root: root),
                                configuration: ResolverConfiguration(upstream: "http://127.0.0.1:9"))
        } catch {
            fatalError("fixture resolver: \(error)")
        }
    }()

    /// The files of `demo` 1.0.0, by path.
    public static let demoFiles: [String: [UInt8]] = [
        "index.html": Array("<!doctype html><title>demo</title><script src=app.js></script>".utf8),
        "app.js": Array(String(repeating: "console.log('demo');\n", count: 40).utf8),
        "app.js.gz": [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        "css/site.css": Array("body { margin: 0 }\n".utf8),
        "sub/index.html": Array("<p>sub</p>".utf8),
        "a b.txt": Array("space".utf8),
        "\u{00FC}n\u{00EF}.txt": Array("unicode".utf8),
        "empty.txt": [],
        "big.bin": [UInt8](repeating: 0x5a, count: 300 * 1024),
    ]

    private static func make() -> String {
        let root = FixtureFiles.makeTemporaryDirectory("pkgctl-fuzz")
        install(root, "demo", "1.0.0", routes: ["www.example.com/app", "static.example.com"], spaFallback: "index.html",
                files: demoFiles)
        install(root, "docs", "2.0.0", routes: ["www.example.com/app/docs", "localhost:8080"], spaFallback: nil,
                files: ["index.html": Array("<p>docs</p>".utf8), "guide.html": Array("<p>guide</p>".utf8)])
        atexit { FixtureFiles.removeTree(FixtureStore.root) }
        return root
    }

    private static func install(_ root: String, _ name: String, _ version: String, routes: [String],
                                spaFallback: String?, files: [String: [UInt8]]) {
        let directory = root + "/packages/\(name)/\(version)"
        for (path, bytes) in files { FixtureFiles.write(bytes, to: directory + "/" + path) }
        FixtureFiles.makeDirectories(directory)
        let routeList = routes.map { "\"\($0)\"" }.joined(separator: ",")
        let fallback = spaFallback.map { ",\"spaFallback\":\"\($0)\"" } ?? ""
        let record = "{\"entry\":{\"name\":\"\(name)\",\"version\":\"\(version)\",\"url\":\"\(name)-\(version).zip\","
            + "\"sha256\":\"\(String(repeating: "0", count: 64))\",\"size\":0,\"routes\":[\(routeList)]\(fallback)},"
            + "\"installedAt\":\"2026-01-01T00:00:00Z\",\"index\":{\"files\":{}}}"
        FixtureFiles.write(Array(record.utf8), to: root + "/state/packages/\(name)/\(version).json")
        guard symlink(version, root + "/packages/\(name)/current") == 0 else { fatalError("fixture store: symlink") }
    }
}
