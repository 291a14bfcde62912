import Foundation
import Testing

/// One build of the example app the suite drives as its user would: `Examples/HybridApp`
/// (Swift, PkgCore's API), named by `HYBRID_APP`, `Examples/HybridAppC` (C, the resolver's C
/// ABI through pkg-config), named by `HYBRID_APP_C`, `Examples/HybridAppQt` (C++, Qt
/// WebEngine, the same ABI), named by `HYBRID_APP_QT`, and `Examples/HybridAppGtkPython`
/// (Python, PyGObject and WebKitGTK over the Python binding), named by
/// `HYBRID_APP_GTK_PYTHON`. `scripts/test` builds all four and
/// runs the suite under `xvfb-run`; without them the hybrid-app tests are skipped. Each logs
/// where an answer comes from as the resolver plans it (`Resolver.plan(for:)`,
/// `pkgctl_resolver_plan()`).
struct HybridApp: Sendable, CustomTestStringConvertible {
    let name: String
    let executable: String

    static let all = [
        HybridApp(name: "swift", variable: "HYBRID_APP"),
        HybridApp(name: "c", variable: "HYBRID_APP_C"),
        HybridApp(name: "qt", variable: "HYBRID_APP_QT"),
        HybridApp(name: "gtk-python", variable: "HYBRID_APP_GTK_PYTHON"),
    ]
    /// The builds named in the environment, when there is a display to open their windows on.
    static let available = ProcessInfo.processInfo.environment["DISPLAY"] == nil ? [] : all.filter {
        !$0.executable.isEmpty && FileManager.default.isExecutableFile(atPath: $0.executable)
    }

    init(name: String, variable: String) {
        self.name = name
        executable = ProcessInfo.processInfo.environment[variable] ?? ""
    }

    var testDescription: String { name }

    /// Where an answer comes from, as the log line of a request says.
    enum Source: String { case package, overlay, origin }

    /// The part of a request's log line that says it was answered with `status`, of `resourceClass`, from `source`.
    func served(_ status: Int, _ resourceClass: String, from source: Source) -> String {
        " \(status) \(resourceClass) \(source.rawValue) "
    }
}
