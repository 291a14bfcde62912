import Foundation
import Testing

/// One build of the example app the suite drives as its user would: `Examples/HybridApp`
/// (Swift, PkgCore's API), named by `HYBRID_APP`, and `Examples/HybridAppC` (C, the
/// resolver's C ABI through pkg-config), named by `HYBRID_APP_C`. `scripts/test` builds
/// both and runs the suite under `xvfb-run`; without them the hybrid-app tests are skipped.
struct HybridApp: Sendable, CustomTestStringConvertible {
    let name: String
    let executable: String
    /// Whether it knows where an answer came from before it starts (PkgCore's
    /// `Resolver.plan(for:)`, or the C ABI's `pkgctl_resolver_plan()`), so its log says
    /// package or overlay; an app that does not logs both as `local`.
    let knowsLocalSource: Bool

    static let all = [
        HybridApp(name: "swift", variable: "HYBRID_APP", knowsLocalSource: true),
        HybridApp(name: "c", variable: "HYBRID_APP_C", knowsLocalSource: true),
        HybridApp(name: "qt", variable: "HYBRID_APP_QT", knowsLocalSource: false),
    ]
    /// The builds named in the environment, when there is a display to open their windows on.
    static let available = ProcessInfo.processInfo.environment["DISPLAY"] == nil ? [] : all.filter {
        !$0.executable.isEmpty && FileManager.default.isExecutableFile(atPath: $0.executable)
    }

    init(name: String, variable: String, knowsLocalSource: Bool) {
        self.name = name
        executable = ProcessInfo.processInfo.environment[variable] ?? ""
        self.knowsLocalSource = knowsLocalSource
    }

    var testDescription: String { name }

    /// Where an answer comes from, as the log line of a request says.
    enum Source: String { case package, overlay, origin }

    /// The part of a request's log line that says it was answered with `status`, of `resourceClass`, from `source`.
    func served(_ status: Int, _ resourceClass: String, from source: Source) -> String {
        " \(status) \(resourceClass) \(source == .origin || knowsLocalSource ? source.rawValue : "local") "
    }
}
