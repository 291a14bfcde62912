import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// A store's directory changes are flushed before the next step depends on them, read with
/// strace as the kernel saw the calls: a power cut then leaves the steps done in order.
@Suite struct StoreDurabilityTests {
    let temp: TemporaryDirectory

    init() throws {
        temp = try TemporaryDirectory()
    }

    @Test func rollbackFlushesTheForgottenValidatorsBeforeItSwitchesCurrent() throws {
        let origin = temp.path("origin"), root = temp.path("store")
        for version in ["1.0.0", "1.1.0"] {
            _ = try BundleFixtures.publishDemo([version], into: origin)
            let updated = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://\(origin)/manifest.json",
                                                 "--no-report"])
            try #require(updated.status == 0, "\(updated.stderr)")
        }
        let state = StoreLayout(root: root).manifestState
        try #require(FileManager.default.fileExists(atPath: state), "the validators a 304 would reuse")
        let log = temp.path("strace")
        _ = try runCommand("/usr/bin/strace", ["-f", "-qq", "-y", "-e", "trace=unlink,unlinkat,fsync,rename,renameat,renameat2",
                                               "-o", log, PkgctlProcess.executable, "rollback", "demo", "--root", root])
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let unlinked = try #require(lines.firstIndex { $0.contains("unlink") && $0.contains("\"\(state)\"") && $0.hasSuffix("= 0") },
                                    "\(lines)")
        let switched = try #require(lines.firstIndex { $0.contains("rename") && $0.contains("/demo/current\"") }, "\(lines)")
        let flushed = lines[unlinked..<switched].contains { $0.contains("fsync(") && $0.contains("<\(PathName.parent(state))>") }
        #expect(unlinked < switched && flushed, "state/ flushed between the unlink and the switch: \(lines)")
        #expect(!FileManager.default.fileExists(atPath: state))
    }
}
