import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Signed manifests end to end: keys made by the test, a loopback HTTPS nginx
/// origin, real downloads. Every refusal leaves the active version serving and
/// downloads nothing but the manifest.
@Suite struct SigningTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore
    let fixtures: SigningFixtures

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
        fixtures = SigningFixtures(in: temp.path)
    }

    func updater(_ manifestURL: String, trust: TrustPolicy, caFile: String? = nil,
                 now: Date = Date()) -> Updater {
        Updater(store: store, manifestURL: manifestURL,
                transfer: TransferOptions(caFile: caFile, connectTimeout: 2, stallTimeout: 2, maxAttempts: 2,
                                          retryBaseDelay: 0.05),
                trust: trust, clock: { now })
    }

    // MARK: - Keys

    @Test func keygenWritesAPrivateKeyOnlyTheOwnerReadsAndRefusesToOverwrite() throws {
        let key = try fixtures.makeKey("release")
        var info = stat()
        #expect(stat(fixtures.keys + "/release.key", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try fixtures.trustedKey("release").id == key.publicKey.id)
        #expect(key.publicKey.id.count == 64)
        let again = #expect(throws: PkgError.self) { try fixtures.makeKey("release") }
        #expect(again?.message.contains("already exists") == true)
        #expect(try fixtures.signingKey("release").publicKey.id == key.publicKey.id, "the key was not replaced")
    }

    @Test func keyFilesAreTheStandardFormatsOpenSSLReadsAndWrites() throws {
        try fixtures.makeKey("ours")
        // openssl derives the same public key from our private key file...
        let derived = try OpenSSL.run(["pkey", "-in", fixtures.keys + "/ours.key", "-pubout"])
        #expect(derived == String(decoding: try #require(try FileSystem.read(fixtures.keys + "/ours.pub")), as: UTF8.self))
        // ...and a key openssl generates signs manifests pkgctl accepts.
        let theirs = fixtures.keys + "/theirs.key"
        _ = try OpenSSL.run(["genpkey", "-algorithm", "ed25519", "-out", theirs])
        chmod(theirs, 0o600)
        let pub = try OpenSSL.run(["pkey", "-in", theirs, "-pubout"])
        try Data(pub.utf8).write(to: URL(fileURLWithPath: fixtures.keys + "/theirs.pub"))
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("theirs"))
        let report = try updater("file://" + originRoot + "/manifest.json", trust: try fixtures.policy("theirs")).run()
        #expect(report.succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
    }

    @Test func wrongKindsOfKeyFilesAreRefusedByName() throws {
        try fixtures.makeKey("release")
        let asPublic = #expect(throws: PkgError.self) { try TrustedKey(file: fixtures.keys + "/release.key") }
        #expect(asPublic?.message == "\(fixtures.keys)/release.key is a private key; trust the public key (.pub) instead, "
                + "and keep the private one off devices")
        let asPrivate = #expect(throws: PkgError.self) { try SigningKey(file: fixtures.keys + "/release.pub") }
        #expect(asPrivate?.message.contains("is a public key") == true)
        chmod(fixtures.keys + "/release.key", 0o644)
        let exposed = #expect(throws: PkgError.self) { try SigningKey(file: fixtures.keys + "/release.key") }
        #expect(exposed?.message.contains("accessible by others (mode 644)") == true)
        let missing = #expect(throws: PkgError.self) { try TrustedKey(file: fixtures.keys + "/nope.pub") }
        #expect(missing?.message == "key file \(fixtures.keys)/nope.pub does not exist")
        let garbage = try temp.write(Array("not a key".utf8), to: "garbage.pub")
        #expect(throws: PkgError.self) { try TrustedKey(file: garbage) }
    }

    // MARK: - Envelope

    @Test func changingAnyByteOfASignedManifestIsRefused() throws {
        try fixtures.makeKey("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("release"))
        let original = try #require(try FileSystem.read(originRoot + "/manifest.json"))
        let policy = try fixtures.policy("release")
        _ = try policy.open(original, source: "m", now: Date())
        var accepted: [Int] = []
        for offset in original.indices {
            var changed = original
            changed[offset] ^= 0x01
            if (try? policy.open(changed, source: "m", now: Date())) != nil { accepted.append(offset) }
        }
        #expect(accepted.isEmpty, "accepted with a changed byte at \(accepted.prefix(5)) of \(original.count)")
    }

    @Test func signaturesByUnknownKeysAreIgnoredButABadTrustedOneRefuses() throws {
        try fixtures.makeKey("old")
        try fixtures.makeKey("new")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("old", "new"))
        let body = try #require(try FileSystem.read(originRoot + "/manifest.json"))
        #expect(try fixtures.policy("old").open(body, source: "m", now: Date()).signedBy == [try fixtures.trustedKey("old").id])
        #expect(try fixtures.policy("new").open(body, source: "m", now: Date()).signedBy == [try fixtures.trustedKey("new").id])

        // The "new" signature replaced by one over other bytes: a device trusting "new" refuses.
        var envelope = try SignedEnvelope.parse(body, source: "m")
        let forged = SignedEnvelope.sign(payload: Array("{}".utf8), payloadType: envelope.payloadType,
                                         keys: [try fixtures.signingKey("new")])
        envelope.signatures[1] = forged.signatures[0]
        let tampered = try envelope.encoded()
        #expect(try fixtures.policy("old").open(tampered, source: "m", now: Date()).manifest.packages.count == 1)
        let error = #expect(throws: PkgError.self) { try fixtures.policy("old", "new").open(tampered, source: "m", now: Date()) }
        #expect(error?.message.contains("does not verify") == true)
    }

    @Test func unsignedManifestsStillWorkWithoutTrustedKeysAndSignedOnesAreReadToo() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater("file://" + originRoot + "/manifest.json", trust: TrustPolicy()).run().succeeded)
        try fixtures.makeKey("release")
        try SigningFixtures.publishDemo("1.1.0", into: originRoot, signer: try fixtures.signer("release"))
        #expect(try updater("file://" + originRoot + "/manifest.json", trust: TrustPolicy()).run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
    }

    @Test func aStoreThatAcceptedSignedManifestsRefusesToStopVerifyingQuietly() throws {
        try fixtures.makeKey("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("release"))
        let url = "file://" + originRoot + "/manifest.json"
        #expect(try updater(url, trust: try fixtures.policy("release")).run().succeeded)
        try FileManager.default.removeItem(atPath: originRoot + "/manifest.json")
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        let error = #expect(throws: PkgError.self) { try updater(url, trust: TrustPolicy()).run() }
        #expect(error?.message.contains("has accepted signed manifests; reading another needs its trusted keys") == true)
        #expect(error?.remedy == .trustedKeys)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        try FileManager.default.removeItem(atPath: store.layout.trustState)
        #expect(try updater(url, trust: TrustPolicy()).run().succeeded, "the documented way out")
        #expect(store.activeVersion(of: "demo") == "1.1.0")
    }

    @Test func packAndSignRaiseTheSequenceAndPackKeepsASignedManifestSigned() throws {
        try fixtures.makeKey("release")
        let signer = try fixtures.signer("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: signer)
        try SigningFixtures.publishDemo("1.1.0", into: originRoot, signer: signer)
        let path = originRoot + "/manifest.json"
        #expect(try PublishedManifest.read(path)?.manifest.sequence == 2)
        let resigned = try signer.resign(PublishingFolder(originRoot))
        #expect(resigned.sequence == 3)
        #expect(resigned.packages.map(\.version) == ["1.1.0"])
        let unsigned = #expect(throws: PkgError.self) {
            try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        }
        #expect(unsigned?.message.contains("is signed; changing it needs a signing key") == true)
        #expect(unsigned?.remedy == .signingKey)
        #expect(try PublishedManifest.read(path)?.isSigned == true)
    }

    // MARK: - Refusals against a real origin

    @Test func refusalsChangeNothingAndDownloadNothing() throws {
        try fixtures.makeKey("release")
        try fixtures.makeKey("stranger")
        let origin = try NginxOrigin(root: originRoot, tls: true, accessLog: true)
        defer { origin.stop() }
        let manifestURL = origin.baseURL + "/manifest.json"
        let trust = try fixtures.policy("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("release"))
        #expect(try updater(manifestURL, trust: trust, caFile: origin.caFile).run().succeeded)

        func expectRefused(_ reason: String, now: Date = Date(), active: String = "1.0.0",
                           sourceLocation: SourceLocation = #_sourceLocation) {
            let before = origin.accessLog().count
            let error = #expect(throws: PkgError.self, sourceLocation: sourceLocation) {
                try updater(manifestURL, trust: trust, caFile: origin.caFile, now: now).run()
            }
            #expect(error?.code == .untrustedManifest, sourceLocation: sourceLocation)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
            #expect(error?.message.hasPrefix("manifest \(manifestURL)") == true, sourceLocation: sourceLocation)
            #expect(eventually { origin.accessLog().count == before + 1 }, sourceLocation: sourceLocation)
            #expect(!origin.accessLog().dropFirst(before).contains { $0.contains(".zip") },
                    "nothing but the manifest is fetched", sourceLocation: sourceLocation)
            #expect(store.activeVersion(of: "demo") == active, sourceLocation: sourceLocation)
            #expect((try? store.verify("demo").allSatisfy(\.isIntact)) == true, sourceLocation: sourceLocation)
            #expect((try? FileSystem.contents(of: store.layout.staging).isEmpty) == true, sourceLocation: sourceLocation)
        }
        var served = 0
        func serve(_ bytes: [UInt8]) throws {
            // A distinct mtime each time, so nginx's ETag (mtime and size) never repeats within a second.
            served += 1
            try FileSystem.writeAtomically(bytes, to: originRoot + "/manifest.json")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000 + Double(served) * 10)],
                                                  ofItemAtPath: originRoot + "/manifest.json")
        }

        let signed100 = try #require(try FileSystem.read(originRoot + "/manifest.json"))
        try SigningFixtures.publishDemo("1.1.0", into: originRoot, signer: try fixtures.signer("release"))
        let signed110 = try #require(try FileSystem.read(originRoot + "/manifest.json"))
        let manifest110 = try #require(try PublishedManifest.read(originRoot + "/manifest.json")).manifest

        try serve(Array(try manifest110.encoded()))
        expectRefused("is not signed, and trusted keys are configured")

        var flipped = signed110
        let payloadStart = try #require(String(decoding: signed110, as: UTF8.self).range(of: "\"payload\" : \""))
        var offset = String(decoding: signed110, as: UTF8.self).utf8.distance(
            from: String(decoding: signed110, as: UTF8.self).utf8.startIndex, to: payloadStart.upperBound) + 40
        while !(UInt8(ascii: "A")..<UInt8(ascii: "Z")).contains(flipped[offset]) { offset += 1 }
        flipped[offset] += 1
        try serve(flipped)
        expectRefused("does not verify")

        try serve(try fixtures.signer("stranger").sign(manifest110))
        expectRefused("is not signed by a trusted key")

        try serve(try SignedEnvelope.sign(payload: Array(try manifest110.encoded()), payloadType: "application/json",
                                          keys: [try fixtures.signingKey("release")]).encoded())
        expectRefused("payload type 'application/json' is not application/vnd.pkgctl.manifest+json")

        try serve(signed110)
        expectRefused("expired at", now: Date().addingTimeInterval(31 * 86_400))
        expectRefused("expired at", now: Date().addingTimeInterval(30 * 86_400 + 301))
        #expect(try updater(manifestURL, trust: trust, caFile: origin.caFile,
                            now: Date().addingTimeInterval(30 * 86_400 + 120)).run().succeeded,
                "a slow clock within the allowed skew still updates")
        #expect(store.activeVersion(of: "demo") == "1.1.0")

        // Replay: the origin serves the older signed manifest again.
        try serve(signed100)
        expectRefused("sequence 1 is below 2", active: "1.1.0")
        // Same sequence, other content.
        var other = try #require(try PublishedManifest.read(originRoot + "/manifest.json")).manifest
        other.sequence = 1
        try serve(try fixtures.signer("release").sign(other))
        expectRefused("sequence 2 was accepted before with different content", active: "1.1.0")
    }

    @Test func anOriginAnswering304ForeverCannotFreezeADevicePastExpiry() throws {
        try fixtures.makeKey("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("release"))
        try backdate(originRoot + "/manifest.json")
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        let manifestURL = origin.baseURL + "/manifest.json"
        let trust = try fixtures.policy("release")
        #expect(try updater(manifestURL, trust: trust).run().manifest == .fetched)
        #expect(try updater(manifestURL, trust: trust).run().manifest == .notModified)
        // Past expiry the device no longer takes 304 for an answer: it asks unconditionally and refuses.
        let error = #expect(throws: PkgError.self) {
            try updater(manifestURL, trust: trust, now: Date().addingTimeInterval(40 * 86_400)).run()
        }
        #expect(error?.message.contains("expired at") == true)
        #expect(eventually { origin.accessLog().last?.hasPrefix("/manifest.json 200") == true }, "\(origin.accessLog())")
        // Trusting another key set also asks again.
        try fixtures.makeKey("second")
        #expect(try updater(manifestURL, trust: try fixtures.policy("release", "second")).run().manifest == .fetched)
    }

    /// The rotation procedure of the README: devices trusting the old key, then
    /// both, then the new one, keep updating at every step.
    @Test func keyRotationNeverStopsADeviceThatFollowsTheProcedure() throws {
        try fixtures.makeKey("old")
        try fixtures.makeKey("new")
        let manifestURL = "file://" + originRoot + "/manifest.json"
        let steps: [(publisher: [String], device: [String], version: String)] = [
            (["old"], ["old"], "1.0.0"),
            (["old", "new"], ["old"], "1.1.0"),
            (["old", "new"], ["old", "new"], "1.0.0"),
            (["new"], ["old", "new"], "1.1.0"),
            (["new"], ["new"], "1.0.0"),
        ]
        for (index, step) in steps.enumerated() {
            let signer = ManifestSigner(keys: try step.publisher.map(fixtures.signingKey))
            // Back and forth between the two sample versions, so every step changes the manifest.
            try SigningFixtures.publishDemo(step.version, into: originRoot, signer: signer, allowDowngrade: true)
            let trust = TrustPolicy(trustedKeys: try step.device.map(fixtures.trustedKey))
            let report = try updater(manifestURL, trust: trust).run()
            #expect(report.succeeded, "step \(index + 1)")
            #expect(store.activeVersion(of: "demo") == step.version, "step \(index + 1)")
        }
        // Out of order, a device still trusting only the old key refuses the new key's manifest.
        let error = #expect(throws: PkgError.self) {
            try updater(manifestURL, trust: try fixtures.policy("old")).run()
        }
        #expect(error?.message.contains("is not signed by a trusted key") == true)
    }
}

/// Runs the `openssl` command line tool.
enum OpenSSL {
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let out = ProcessLaunch.pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestSupportError("openssl \(arguments) failed") }
        return String(decoding: data, as: UTF8.self)
    }
}
