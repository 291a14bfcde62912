import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What a stolen or rogue key, and an origin that rewrites signed files, can
/// and cannot do (TUF §1.5.2, §5.3.11): keys made by the test, manifests read
/// by `Updater` over HTTP from an origin on 127.0.0.1 serving what the test writes.
@Suite struct KeyCompromiseTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore
    let fixtures: SigningFixtures
    let origin: HostileOrigin
    var manifestPath: String { originRoot + "/manifest.json" }
    var manifestURL: String { origin.baseURL + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
        fixtures = SigningFixtures(in: temp.path)
        origin = try HostileOrigin(root: originRoot)
    }

    func run(trusting keys: [String], threshold: Int = 1) throws -> UpdateReport {
        let trust = TrustPolicy(trustedKeys: try keys.map(fixtures.trustedKey), threshold: threshold)
        return try Updater(store: store, manifestURL: manifestURL, trust: trust).run()
    }

    func expectRefused(trusting keys: [String], threshold: Int = 1, _ text: String, active: String?,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: PkgError.self, sourceLocation: sourceLocation) {
            try run(trusting: keys, threshold: threshold)
        }
        #expect(error?.code == .untrustedManifest, sourceLocation: sourceLocation)
        #expect(error?.message.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(store.activeVersion(of: "demo") == active, sourceLocation: sourceLocation)
    }

    // MARK: - Fast-forward (§5.3.11)

    /// A stolen key signs the largest sequence; following the README's recovery
    /// (a new key, devices trusting only it) the fleet updates again, with no
    /// file removed by hand on any device.
    @Test func aStolenKeysHugeSequenceStopsBindingOnceTheKeyIsRotatedOut() throws {
        try fixtures.makeKey("old")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("old"))
        #expect(try run(trusting: ["old"]).succeeded)
        let genuine = try #require(try PublishedManifest.read(manifestPath)).manifest

        // The thief signs 1.1.0 with the largest sequence there is.
        try SigningFixtures.publishDemo("1.1.0", into: originRoot, signer: try fixtures.signer("old"))
        var forged = try #require(try PublishedManifest.read(manifestPath)).manifest
        forged.sequence = Manifest.maxSequence - 1
        try FileSystem.writeAtomically(try fixtures.signer("old").sign(forged), to: manifestPath)
        #expect(try run(trusting: ["old"]).succeeded, "validly signed by a trusted key: accepted")
        #expect(store.activeVersion(of: "demo") == "1.1.0")

        // Nothing can be signed after it, and the publisher's own next manifest is below it.
        let atMaximum = try #require(try PublishedManifest.read(manifestPath)).manifest
        #expect(atMaximum.sequence == Manifest.maxSequence)
        let stuck = #expect(throws: PkgError.self) { try fixtures.signer("old").sign(atMaximum) }
        #expect(stuck?.message.contains("cannot be raised") == true)
        try FileSystem.writeAtomically(try fixtures.signer("old").sign(genuine), to: manifestPath)
        expectRefused(trusting: ["old"], "sequence 2 is below \(Manifest.maxSequence)", active: "1.1.0")

        // Recovery, as docs/SIGNING.md says: the publisher's own manifest signed by the stolen key
        // and a new one (pkgctl refuses a key the manifest it replaces was not signed by); devices
        // trust the new key alone.
        try fixtures.makeKey("new")
        try FileSystem.writeAtomically(try fixtures.signer("old", "new").sign(genuine), to: manifestPath)
        expectRefused(trusting: ["old", "new"], "is below \(Manifest.maxSequence)", active: "1.1.0")
        let recovered = try run(trusting: ["new"])
        #expect(recovered.succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0", "the genuine manifest is installed again")
        // Later manifests of the new key keep being accepted, and the new key's own floor holds.
        try SigningFixtures.publishDemo("1.1.0", into: originRoot, signer: try fixtures.signer("new"))
        #expect(try run(trusting: ["new"]).succeeded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        try FileSystem.writeAtomically(try fixtures.signer("new").sign(genuine), to: manifestPath)
        expectRefused(trusting: ["new"], "sequence 2 is below 3", active: "1.1.0")
    }

    @Test func sequencesPastTheBoundAreRefusedNeverTrappedOn() throws {
        try fixtures.makeKey("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("release"))
        let payload = String(decoding: try SignedEnvelope.parse(try FileSystem.read(manifestPath) ?? [],
                                                                source: manifestPath).payloadBytes, as: UTF8.self)
        #expect(payload.contains("\"sequence\" : 1\n"))
        for sequence in [Manifest.maxSequence + 1, UInt64.max] {
            // Signed by the trusted key itself: only the number is wrong.
            let edited = payload.replacingOccurrences(of: "\"sequence\" : 1\n", with: "\"sequence\" : \(sequence)\n")
            let envelope = SignedEnvelope.sign(payload: Array(edited.utf8), payloadType: SignedEnvelope.manifestPayloadType,
                                               keys: [try fixtures.signingKey("release")])
            try FileSystem.writeAtomically(try envelope.encoded(), to: manifestPath)
            let error = #expect(throws: PkgError.self) { try run(trusting: ["release"]) }
            #expect(error?.message.contains("sequence \(sequence) is above the largest allowed") == true,
                    "\(String(describing: error))")
            let signing = #expect(throws: PkgError.self) { try fixtures.signer("release").resign(PublishingFolder(PathName.parent(manifestPath))) }
            #expect(signing?.message.contains("sequence \(sequence) is above the largest allowed") == true)
        }
        #expect(store.activeVersion(of: "demo") == nil)
    }

    // MARK: - Thresholds (§1.5.2 "vulnerability to key compromise")

    @Test func aThresholdNeedsThatManyDistinctTrustedKeys() throws {
        for name in ["a", "b", "c"] { try fixtures.makeKey(name) }
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("a"))
        expectRefused(trusting: ["a", "b", "c"], threshold: 2, "is signed by 1 of the trusted keys; 2 must sign it",
                      active: nil)
        // One key's signature twice is still one key.
        let payload = try SignedEnvelope.parse(try FileSystem.read(manifestPath) ?? [], source: manifestPath).payloadBytes
        let twice = SignedEnvelope.sign(payload: payload, payloadType: SignedEnvelope.manifestPayloadType,
                                        keys: [try fixtures.signingKey("a"), try fixtures.signingKey("a")])
        #expect(twice.signatures.count == 2)
        try FileSystem.writeAtomically(try twice.encoded(), to: manifestPath)
        expectRefused(trusting: ["a", "b", "c"], threshold: 2, "is signed by 1 of the trusted keys", active: nil)
        // An untrusted key's signature does not count either.
        try fixtures.makeKey("stranger")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("a", "stranger"))
        expectRefused(trusting: ["a", "b", "c"], threshold: 2, "is signed by 1 of the trusted keys", active: nil)
        // Two distinct trusted keys: accepted.
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("a", "c"))
        #expect(try run(trusting: ["a", "b", "c"], threshold: 2).succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        let impossible = #expect(throws: PkgError.self) { try run(trusting: ["a", "b"], threshold: 3) }
        #expect(impossible?.message == "threshold 3 must be 1 to the number of trusted keys (2)")
    }

    // MARK: - One document, one reading

    @Test func duplicateOrUnknownKeysInASignedManifestAreRefused() throws {
        try fixtures.makeKey("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("release"))
        #expect(try run(trusting: ["release"]).succeeded)
        let genuine = String(decoding: try FileSystem.read(manifestPath) ?? [], as: UTF8.self)
        let envelope = try SignedEnvelope.parse(Array(genuine.utf8), source: manifestPath)
        let payload = String(decoding: envelope.payloadBytes, as: UTF8.self)
        let key = try fixtures.signingKey("release")

        func serveEnvelope(_ text: String) throws { try FileSystem.writeAtomically(Array(text.utf8), to: manifestPath) }
        func serveSigned(_ payloadText: String) throws {
            let signed = SignedEnvelope.sign(payload: Array(payloadText.utf8),
                                             payloadType: SignedEnvelope.manifestPayloadType, keys: [key])
            try FileSystem.writeAtomically(try signed.encoded(), to: manifestPath)
        }
        let other = Data(Array(#"{"schemaVersion":1,"packages":[]}"#.utf8)).base64EncodedString()
        let cases: [(setUp: () throws -> Void, refusal: String)] = [
            ({ try serveEnvelope("{\"payload\": \"\(other)\", " + genuine.dropFirst()) },
             "malformed signed envelope: top level: duplicate key 'payload'"),
            ({ try serveEnvelope("{\"p\\u0061yload\": \"\(other)\", " + genuine.dropFirst()) },
             "malformed signed envelope: top level: duplicate key 'payload'"),
            ({ try serveEnvelope("{\"comment\": \"hi\", " + genuine.dropFirst()) },
             "malformed signed envelope: top level: unknown key 'comment'"),
            ({ try serveSigned("{\"packages\": [], " + payload.dropFirst()) },
             "signed payload: top level: duplicate key 'packages'"),
            ({ try serveSigned(payload.replacingOccurrences(of: "\"name\" : \"demo\"", with: "\"name\" : \"demo\", \"name\" : \"other\"")) },
             "signed payload: packages[0]: duplicate key 'name'"),
            ({ try serveSigned(payload.replacingOccurrences(of: "\"name\" : \"demo\"", with: "\"name\" : \"demo\", \"mirror\" : \"x\"")) },
             "signed payload: packages[0]: unknown key 'mirror'"),
        ]
        for (index, attack) in cases.enumerated() {
            try attack.setUp()
            let error = #expect(throws: PkgError.self, "case \(index)") { try run(trusting: ["release"]) }
            #expect(error?.message.contains(attack.refusal) == true, "case \(index): \(String(describing: error))")
            #expect(store.activeVersion(of: "demo") == "1.0.0")
        }
        // An unsigned manifest keeps ignoring fields it does not know (schema v1's forward compatibility).
        let unsigned = PackageStore(root: temp.path + "/unsigned")
        try FileSystem.writeAtomically(Array(payload.replacingOccurrences(
            of: "\"name\" : \"demo\"", with: "\"name\" : \"demo\", \"mirror\" : \"x\"").utf8), to: manifestPath)
        #expect(try Updater(store: unsigned, manifestURL: manifestURL).run().succeeded)
    }

    // MARK: - Roles: an online timestamp key beside an offline content key (TUF §2.1)

    @Test func anOnlineTimestampKeyKeepsContentFreshButCanSignNothingElse() throws {
        try fixtures.makeKey("content")
        try fixtures.makeKey("online")
        let day = 86_400.0
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("content", validity: 365 * day))
        let online = TimestampSigner(keys: [try fixtures.signingKey("online")])
        try online.write(in: PublishingFolder(originRoot))
        let trust = TrustPolicy(trustedKeys: [try fixtures.trustedKey("content")],
                                timestampKeys: [try fixtures.trustedKey("online")])
        func run(at offset: TimeInterval = 0) throws -> UpdateReport {
            try Updater(store: store, manifestURL: manifestURL, trust: trust, clock: { Date().addingTimeInterval(offset) }).run()
        }
        func expectRefused(at offset: TimeInterval = 0, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let error = #expect(throws: PkgError.self, sourceLocation: sourceLocation) { try run(at: offset) }
            #expect(error?.message.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
            #expect(store.activeVersion(of: "demo") == "1.0.0", sourceLocation: sourceLocation)
        }
        #expect(try run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")

        // A day later the manifest is good for a year, but the timestamp has run out...
        expectRefused(at: 2 * day, "timestamp \(origin.baseURL)/timestamp.json expired at ")
        // ...until the online key renews it, with the content key still offline.
        try online.write(in: PublishingFolder(originRoot), now: Date().addingTimeInterval(2 * day))
        #expect(try run(at: 2 * day).succeeded)

        // Stolen, the online key signs no content: a manifest signed by it alone is refused. (The
        // thief writes it over manifest.json: pkgctl itself refuses to sign with a key that did
        // not sign the manifest it replaces, PublisherKeyContinuityTests.)
        let genuine = try #require(try FileSystem.read(manifestPath))
        let forged = try fixtures.signer("online").sign(try PublishingFolder(originRoot).readManifest().manifest)
        try FileSystem.writeAtomically(forged, to: manifestPath)
        try online.write(in: PublishingFolder(originRoot))
        expectRefused("is not signed by a trusted key")
        try FileSystem.writeAtomically(genuine, to: manifestPath)
        try online.write(in: PublishingFolder(originRoot))
        // The timestamp says which manifest is current: with a newer manifest.json beside it (a
        // publish between the two, or a cache holding one longer), the device takes the one the
        // timestamp names from its snapshot, and stays on 1.0.0 (TUF's consistent snapshots)...
        try SigningFixtures.publishDemo("1.1.0", into: originRoot, signer: try fixtures.signer("content", validity: 365 * day))
        let snapshots = originRoot + "/" + Timestamp.snapshotsFolder
        #expect(try FileSystem.contents(of: snapshots).count == 2)
        #expect(try run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        // ...and refuses the run when the origin has no such snapshot, or one of another manifest.
        let named = try #require(try FileSystem.contents(of: snapshots).first { name in
            try FileSystem.read(snapshots + "/" + name) != FileSystem.read(manifestPath)
        })
        let namedBytes = try #require(try FileSystem.read(snapshots + "/" + named))
        try FileSystem.writeAtomically(try #require(try FileSystem.read(manifestPath)), to: snapshots + "/" + named)
        expectRefused("is not the one timestamp.json names (sequence ")
        expectRefused("/snapshots/\(named) holds another one (sha256 ")
        try FileManager.default.removeItem(atPath: snapshots + "/" + named)
        expectRefused("and the origin has no \(origin.baseURL)/snapshots/\(named)")
        try FileSystem.writeAtomically(namedBytes, to: snapshots + "/" + named)
        #expect(try run().succeeded)
        // The content key cannot stand in for the timestamp key, nor a manifest for a timestamp
        // (each written by a thief over the timestamp there).
        try FileManager.default.removeItem(atPath: originRoot + "/timestamp.json")
        try TimestampSigner(keys: [try fixtures.signingKey("content")]).write(in: PublishingFolder(originRoot))
        expectRefused("is not signed by a timestamp key")
        try FileManager.default.removeItem(atPath: originRoot + "/timestamp.json")
        try FileManager.default.copyItem(atPath: manifestPath, toPath: originRoot + "/timestamp.json")
        expectRefused("payload type 'application/vnd.pkgctl.manifest+json' is not application/vnd.pkgctl.timestamp+json")
        // What the stolen online key can do: keep a device on the current manifest, but only
        // until that manifest's own (offline-signed) expiry.
        try FileManager.default.removeItem(atPath: originRoot + "/timestamp.json")
        try TimestampSigner(keys: [try fixtures.signingKey("online")], validity: 1000 * day).write(in: PublishingFolder(originRoot))
        #expect(try run(at: 300 * day).succeeded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        let frozen = #expect(throws: PkgError.self) { try run(at: 400 * day) }
        #expect(frozen?.message.contains("expired at") == true && frozen?.message.hasPrefix("manifest ") == true,
                "\(String(describing: frozen))")
        // One key in both roles is refused as a configuration error.
        let both = TrustPolicy(trustedKeys: [try fixtures.trustedKey("content")],
                               timestampKeys: [try fixtures.trustedKey("content")])
        let mixed = #expect(throws: PkgError.self) {
            try Updater(store: store, manifestURL: manifestURL, trust: both).run()
        }
        #expect(mixed?.message == "a key is both a trusted (content) key and a timestamp key; give each role its own key")
    }
}
