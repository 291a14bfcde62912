import Foundation
import Testing
@testable import PkgCore

/// A store path with a typo is refused, not made: the resolver (Swift here; C, Python and Rust in
/// ResolverCABITests and the bindings' own tests), `pkgctl resolve` and `pkgctl serve` name the
/// path in one line and create nothing. A store that exists and holds no package stays valid.
@Suite struct MissingStoreTests {
    let temp: TemporaryDirectory
    var missing: String { temp.path + "/no/such/store" }

    init() throws {
        temp = try TemporaryDirectory()
    }

    @Test func theResolverRefusesAStoreThatDoesNotExistAndCreatesNothing() throws {
        let error = #expect(throws: PkgError.self) { try Resolver(store: PackageStore(root: missing)) }
        #expect(error?.code == .fileSystem && error?.errno == ENOENT, "\(String(describing: error))")
        #expect(error?.message == "store \(missing) does not exist; pkgctl update creates a store (is the path right?)")
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/no"), "nothing created, parents included")

        let file = temp.path + "/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let notDirectory = #expect(throws: PkgError.self) { try Resolver(store: PackageStore(root: file)) }
        #expect(notDirectory?.message == "store \(file) is not a directory")

        // An empty store that exists is a store: it serves nothing yet, and says so elsewhere.
        let empty = try temp.makeDirectory("empty")
        let resolver = try Resolver(store: PackageStore(root: empty))
        resolver.shutdown()
    }

    @Test func resolveAndServeRefuseAStorePathThatDoesNotExist() throws {
        for arguments in [["resolve", "--root", missing, "app://www.example.com/app/index.html"],
                          ["serve", "--root", missing, "--port", "0"]] {
            let result = try PkgctlProcess.run(arguments)
            #expect(result.status == 1, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr == "pkgctl: store \(missing) does not exist; pkgctl update creates a store "
                    + "(is the path right?)\n", "\(arguments[0])")
            #expect(!FileManager.default.fileExists(atPath: temp.path + "/no"), "\(arguments[0]) created nothing")
        }
    }
}
