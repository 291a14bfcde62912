import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl rollout OUT_DIR NAME` with no percent shows where the rollout stands and changes nothing.
@Suite struct RolloutShowCommandTests {
    let temp: TemporaryDirectory
    var out: String { temp.path + "/out" }

    init() throws { temp = try TemporaryDirectory() }

    @Test func showsTheShareThePinsAndWhatTheOthersGet() throws {
        try BundleFixtures.packDemo("1.0.0", into: out)
        #expect(try PkgctlProcess.run(["rollout", out, "demo"]).stdout == "demo 1.0.0: every device\n")
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "25"])
        let devices = temp.path + "/devices"
        try Data("qa-phone-1\nqa-phone-2\n".utf8).write(to: URL(fileURLWithPath: devices))
        #expect(try PkgctlProcess.run(["rollout", out, "demo", "--devices", devices]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))

        let shown = try PkgctlProcess.run(["rollout", out, "demo"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == "demo 1.1.0: 25 % of devices, and 2 pinned devices; the other devices get 1.0.0\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")) == before, "showing changes nothing")
    }

    @Test func aPackageTheManifestLacksIsNamed() throws {
        try BundleFixtures.packDemo("1.0.0", into: out)
        let result = try PkgctlProcess.run(["rollout", out, "zen"])
        #expect(result.status == 1)
        #expect(result.stderr == "pkgctl: manifest \(out)/manifest.json has no package 'zen'\n")
        let missing = try PkgctlProcess.run(["rollout", temp.path + "/none", "demo"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "pkgctl: no manifest.json in \(temp.path)/none: pkgctl pack writes it\n")
    }
}
