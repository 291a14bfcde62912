import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// A real React production build: Streamlit 1.66.1's front-end, `streamlit/static` in its PyPI
/// wheel (which `scripts/setup --test` downloads): `index.html`, about 300 Vite chunks, a
/// stylesheet, fonts, 23 MB. Its `index.html` names every file relatively (`./static/js/…`),
/// so it loads under any route, `www.example.com/app/` here. Without its Python backend the
/// app renders its shell and keeps trying to connect (`_stcore/health`), which is still React
/// rendering. Extracted once and kept under /tmp for later runs.
enum ReactBuildFixture {
    static let wheel = (ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        ?? NSHomeDirectory() + "/.cache") + "/pkgctl-test/streamlit-1.66.1-py3-none-any.whl"
    static let path = "/tmp/pkgctl-react-fixture/streamlit-1.66.1"
    /// The package's name, and the route it is published at.
    static let name = "streamlit", route = "www.example.com/app"
    /// A page the app has rendered: React mounted its tree in `#root`, and the load event ran
    /// (every script and stylesheet the page asked for has loaded or failed).
    static let mounted = "document.readyState === 'complete' && document.getElementById('root').childElementCount > 0"

    /// The folder, extracted on first use (once per suite run at most).
    private static let extracted: Result<String, TestSupportError> = {
        do throws(TestSupportError) { return .success(try extract()) } catch { return .failure(error) }
    }()

    /// The front-end's folder (its `index.html` at the top), extracted if no earlier run left it.
    static func folder() throws -> String { try extracted.get() }

    /// The scripts and stylesheets `index.html` loads (`src`, and `href` of its modulepreload and
    /// stylesheet links), as paths under the route: `static/js/index.Dlja0TUX.js`.
    static func loadedByIndex() throws -> Set<String> {
        let html = try String(contentsOfFile: try folder() + "/index.html", encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"(?:src|href)="\./(static/(?:js|css)/[^"]+)""#)
        return Set(pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap {
            Range($0.range(at: 1), in: html).map { String(html[$0]) }
        })
    }

    /// Publishes the front-end as package `name` 1.0.0 (routed at `route`) into `directory`/origin
    /// and installs it into `directory`/store, as a device would; the store's root.
    static func installed(in directory: TemporaryDirectory) throws -> String {
        _ = try PublishingFolder(directory.path + "/origin").pack(
            source: try folder(), name: name, version: "1.0.0", options: .init(routes: [route], deltaFrom: 0))
        let root = directory.path + "/store"
        #expect(try Updater(store: PackageStore(root: root), manifestURL: "file://\(directory.path)/origin/manifest.json")
            .run().succeeded)
        return root
    }

    private static func extract() throws(TestSupportError) -> String {
        if FileManager.default.fileExists(atPath: path + "/index.html") { return path }
        guard FileManager.default.fileExists(atPath: wheel) else {
            throw TestSupportError("\(wheel) missing: run scripts/setup --test")
        }
        let partial = path + ".\(getpid()).partial"
        do {
            try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
            _ = try runCommand("/usr/bin/unzip", ["-q", wheel, "streamlit/static/*", "-d", partial])
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw TestSupportError("unzip \(wheel): \(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: partial) }
        guard rename(partial + "/streamlit/static", path) == 0 || FileManager.default.fileExists(atPath: path + "/index.html") else {
            throw TestSupportError("rename into \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }
}
