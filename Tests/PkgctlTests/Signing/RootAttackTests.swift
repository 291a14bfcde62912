import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Every attack on the root of trust in TUF's specification (§5.3), against a device that
/// started from root 1 and reads roots from an origin on 127.0.0.1 serving what the test
/// writes. Each is refused in one line with code `untrustedRoot` (or the size limit's own),
/// the store's kept root and trust state unchanged and its installed version serving.
@Suite struct RootAttackTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore
    let fixtures: SigningFixtures
    let origin: HostileOrigin
    let day = 86_400.0
    var manifestURL: String { origin.baseURL + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
        fixtures = SigningFixtures(in: temp.path)
        origin = try HostileOrigin(root: originRoot)
        for name in ["rootA", "rootB", "rootC", "content", "content2"] { try fixtures.makeKey(name) }
    }

    /// A root of `version` whose root role is `rootKeys` (threshold `threshold`) and whose content key is `content`.
    func root(_ version: UInt64, rootKeys: [String], threshold: Int = 1, content: String = "content",
              expiresIn: TimeInterval = 365 * 86_400) throws -> RootDraft {
        let keys = try (rootKeys + [content]).map(fixtures.trustedKey)
        return try RootDraft(document: RootDocument(
            version: version, expires: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + expiresIn).rounded(.down)), keys: keys,
            roles: ["root": RootRole(keyids: Array(keys.prefix(rootKeys.count)).map(\.id), threshold: threshold),
                    "content": RootRole(keyids: [keys.last!.id], threshold: 1)]))
    }

    /// `draft` signed by `signers`, written to the origin as `roots/N.json` (N: `name`, else its version).
    @discardableResult
    func serve(_ draft: RootDraft, signedBy signers: [String], as name: UInt64? = nil) throws -> [UInt8] {
        var draft = draft
        for signer in signers { draft.envelope = draft.envelope.adding(signatureBy: try fixtures.signingKey(signer)) }
        let path = originRoot + "/" + RootDocument.path(version: name ?? draft.document.version)
        try FileSystem.makeDirectories(originRoot + "/roots")
        let bytes = try draft.encoded()
        try FileSystem.writeAtomically(bytes, to: path)
        return bytes
    }

    /// Root 1 (root key A, content key "content"), given to the device as a file; demo 1.0.0 installed from it.
    func bootstrap(rootKeys: [String] = ["rootA"], threshold: Int = 1) throws -> TrustedRoot {
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("content"))
        let bytes = try serve(try root(1, rootKeys: rootKeys, threshold: threshold), signedBy: rootKeys)
        let file = temp.path + "/root-1.json"
        try FileSystem.writeAtomically(bytes, to: file)
        let given = try TrustedRoot(file: file)
        #expect(try run(given, at: 0).succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        return given
    }

    func run(_ given: TrustedRoot, at offset: TimeInterval) throws -> UpdateReport {
        try Updater(store: store, manifestURL: manifestURL, clock: { Date().addingTimeInterval(offset) },
                    trustedRoot: given).run()
    }

    /// The store's kept root and trust state, which a refusal must leave as they were.
    func trustFiles() throws -> [[UInt8]?] {
        [try FileSystem.read(store.layout.rootState), try FileSystem.read(store.layout.trustState)]
    }

    func expectRefused(_ given: TrustedRoot, at offset: TimeInterval = 0, code: PkgError.Code = .untrustedRoot,
                       _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try trustFiles()
        let error = #expect(throws: PkgError.self, sourceLocation: sourceLocation) { try run(given, at: offset) }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains("\n") == false, sourceLocation: sourceLocation)
        #expect(try trustFiles() == before, "trust state unchanged", sourceLocation: sourceLocation)
        #expect(store.activeVersion(of: "demo") == "1.0.0", sourceLocation: sourceLocation)
    }

    @Test func aRollbackToAnOlderRootIsRefused() throws {
        let given = try bootstrap()
        try serve(try root(2, rootKeys: ["rootA"]), signedBy: ["rootA"])
        #expect(try run(given, at: 0).succeeded)
        // Root 1's bytes offered as root 3: a version may not go back.
        try FileSystem.writeAtomically(try FileSystem.read(temp.path + "/root-1.json") ?? [], to: originRoot + "/roots/3.json")
        try expectRefused(given, "has version 1, not 3: a root may only follow the one before it")
    }

    @Test func aRootSignedOnlyByTheNewKeysOrOnlyByTheOldIsRefused() throws {
        let given = try bootstrap()
        let next = try root(2, rootKeys: ["rootB"])
        try serve(next, signedBy: ["rootB"])
        try expectRefused(given, "is not signed by a version 1 root key")
        try serve(next, signedBy: ["rootA"])
        try expectRefused(given, "is not signed by a version 2 root key")
        try serve(next, signedBy: ["rootA", "rootB"])
        #expect(try run(given, at: 0).succeeded)
        #expect(try TrustedRoot(selfSigned: try FileSystem.read(store.layout.rootState) ?? [], source: "kept").version == 2)
    }

    @Test func aThresholdOfRootKeysNotMetIsRefused() throws {
        let given = try bootstrap(rootKeys: ["rootA", "rootB"], threshold: 2)
        try serve(try root(2, rootKeys: ["rootA", "rootB"], threshold: 2, content: "content2"), signedBy: ["rootA"])
        try expectRefused(given, "is signed by 1 of the version 1 root keys; 2 must sign it")
    }

    @Test func anEndlessChainOfRootsAndOneTooBigAreRefused() throws {
        let given = try bootstrap()
        for version in 2...UInt64(RootDocument.maxWalk + 2) { try serve(try root(version, rootKeys: ["rootA"]), signedBy: ["rootA"]) }
        try expectRefused(given, "the origin offers more than \(RootDocument.maxWalk) roots after root 1")
        try FileManager.default.removeItem(atPath: originRoot + "/roots")
        try FileSystem.makeDirectories(originRoot + "/roots")
        try FileSystem.writeAtomically([UInt8](repeating: UInt8(ascii: " "), count: RootDocument.maxSize + 1),
                                       to: originRoot + "/roots/2.json")
        try expectRefused(given, code: .responseTooLarge, "roots/2.json")
    }

    @Test func anExpiredFinalRootAndAFreezeAreRefused() throws {
        let given = try bootstrap()
        // The newest root on offer has expired.
        try serve(try root(2, rootKeys: ["rootA"], expiresIn: -day), signedBy: ["rootA"])
        try expectRefused(given, "root 2 expired at ")
        // A freeze: the origin keeps serving root 1 (no newer one) past its expiry.
        try FileManager.default.removeItem(atPath: originRoot + "/roots/2.json")
        try expectRefused(given, at: 400 * day, "root 1 expired at ")
    }

    @Test func theSameRootVersionWithOtherBytesIsRefused() throws {
        let given = try bootstrap()
        try serve(try root(2, rootKeys: ["rootA"]), signedBy: ["rootA"])
        #expect(try run(given, at: 0).succeeded)
        // A device given another root 2 than the one its store accepted.
        let other = try serve(try root(2, rootKeys: ["rootA"], content: "content2"), signedBy: ["rootA"], as: 99)
        try FileSystem.writeAtomically(other, to: temp.path + "/other-2.json")
        try expectRefused(try TrustedRoot(file: temp.path + "/other-2.json"),
                          "is not the root 2 this store accepted (the same version with other bytes)")
        // And a root 3 that says it is 2 again.
        try FileSystem.writeAtomically(other, to: originRoot + "/roots/3.json")
        try expectRefused(given, "has version 2, not 3")
    }

    @Test func aContentKeyTheNewRootRemovedSignsNothing() throws {
        let given = try bootstrap()
        try serve(try root(2, rootKeys: ["rootA"], content: "content2"), signedBy: ["rootA"])
        // The manifest there is still signed by the removed key: refused, whatever it says.
        let error = #expect(throws: PkgError.self) { try run(given, at: 0) }
        #expect(error?.code == .untrustedManifest && error?.message.contains("is not signed by a trusted key") == true,
                "\(String(describing: error))")
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        // Signed by the new key, it is taken (a pack into the folder checks the root first).
        try SigningFixtures.editSignedManifest(in: originRoot, signer: try fixtures.signer("content2")) { _ in }
        #expect(try run(given, at: 0).succeeded)
    }

    @Test func aStolenContentKeysFloorIsDroppedWithTheRootThatRotatesItOut() throws {
        let given = try bootstrap()
        // The thief signs the highest sequence there is with the stolen key, and devices take it.
        try SigningFixtures.editSignedManifest(in: originRoot, signer: try fixtures.signer("content")) {
            $0.sequence = Manifest.maxSequence - 1
        }
        #expect(try run(given, at: 0).succeeded)
        // Recovery: root 2 rotates the key out; the publisher signs with the new key from a low sequence
        // again, and the device takes it with no change of its own: the stolen key's floor went with it.
        try serve(try root(2, rootKeys: ["rootA"], content: "content2"), signedBy: ["rootA"])
        try SigningFixtures.editSignedManifest(in: originRoot, signer: try fixtures.signer("content2")) { $0.sequence = 1 }
        #expect(try run(given, at: 0).succeeded)
        #expect(try TrustState.load(store.layout)?.sequence == 2)
    }
}
