import Foundation
import Glibc
import Testing

/// Root is refused a store that belongs to another user (the service's), and errors about the
/// store say where its path came from.
@Suite struct StoreOwnerCommandTests {
    let temp: TemporaryDirectory
    var store: String { temp.path + "/store" }
    var config: String { temp.path + "/config.json" }

    init() throws {
        temp = try TemporaryDirectory()
        try Data(#"{"root": "\#(temp.path)/store"}"#.utf8).write(to: URL(fileURLWithPath: temp.path + "/config.json"))
    }

    @Test(.enabled(if: geteuid() == 0, "only root can write another user's store"))
    func rootIsRefusedAServiceUsersStoreUnlessItForcesIt() throws {
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        #expect(chown(store, 65534, 65534) == 0)
        let owner = getpwuid(65534).map { String(cString: $0.pointee.pw_name) } ?? "uid 65534"

        let refused = try PkgctlProcess.run(["gc", "--config", config])
        #expect(refused.status == 77)
        #expect(refused.stderr.hasPrefix("pkgctl: store root \(store) (from \(config)) belongs to \(owner)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--force-owner"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).isEmpty, "nothing was written")

        let update = try PkgctlProcess.run(["update", "--config", config, "--manifest", "file:///nonexistent/manifest.json"])
        #expect(update.status == 77, "update is refused before it writes: \(update.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).isEmpty)

        #expect(try PkgctlProcess.run(["status", "--config", config]).status == 0, "reading is allowed")
        #expect(try PkgctlProcess.run(["gc", "--config", config, "--force-owner"]).status == 0)
    }

    @Test func anErrorAboutTheStoreNamesWhereItsPathCameFrom() throws {
        // A root that is a file: every command that opens the store fails on it.
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: store))
        let fromFile = try PkgctlProcess.run(["rollback", "demo", "--config", config])
        #expect(fromFile.status != 0)
        #expect(fromFile.stderr.hasSuffix(" [store root \(store) (from \(config))]\n"), "\(fromFile.stderr)")
        let fromEnvironment = try PkgctlProcess.run(["rollback", "demo"], environment: ["PKGCTL_ROOT": store])
        #expect(fromEnvironment.stderr.hasSuffix(" [store root \(store) (from PKGCTL_ROOT)]\n"), "\(fromEnvironment.stderr)")
        let fromFlag = try PkgctlProcess.run(["rollback", "demo", "--root", store])
        #expect(!fromFlag.stderr.contains("[store root"), "a root given on the command line is not explained back")
    }
}
