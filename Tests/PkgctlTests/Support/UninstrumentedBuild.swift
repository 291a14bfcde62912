import Foundation
import Testing

/// The `pkgctl`, `pkgctl-publisher` and `libpkgctl-resolver.so` whose memory and clock are the
/// product's own, for the checks a sanitizer would falsify or cannot run: peak memory and RSS
/// bounds (shadow memory), a clock faked by libfaketime (an instrumented process deadlocks under
/// it), and the library loaded into another runtime (Python, Rust, Qt cannot load an instrumented
/// one). It is the release build the packages ship, which `scripts/test` names in
/// `PKGCTL_RELEASE_BIN` (`scripts/lib/release-build --show-bin-path`); without it, the build
/// beside the tests when no sanitizer instruments it.
enum UninstrumentedBuild {
    /// Its folder; nil under a sanitizer when no release build was named.
    static let folder: String? = {
        if let release = ProcessInfo.processInfo.environment["PKGCTL_RELEASE_BIN"], !release.isEmpty {
            return release
        }
        return Sanitizer.isActive ? nil : PkgctlProcess.buildFolder
    }()

    /// Its `pkgctl` (the publisher's commands run `pkgctl-publisher` beside it).
    static var pkgctl: String? { folder.map { $0 + "/pkgctl" } }

    /// Its `pkgctl`, else this build's: for runs whose time is the test's scale or its subject.
    static var pkgctlOrThisBuild: String { pkgctl ?? PkgctlProcess.executable }

    /// Its resolver library.
    static var library: String? { folder.map { $0 + "/libpkgctl-resolver.so" } }

    /// Why a check needing it did not run.
    static let absence: Comment = "needs an uninstrumented build: PKGCTL_RELEASE_BIN (scripts/test names the release build) or no sanitizer"
}
