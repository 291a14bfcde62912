import Foundation
@testable import PkgCore
@testable import PkgPublishing

/// Keys and signed origins for signing tests: every key is made by the test.
struct SigningFixtures {
    let keys: String

    init(in directory: String) {
        keys = directory + "/keys"
    }

    /// Makes `NAME.key` / `NAME.pub` with pkgctl's own generator.
    @discardableResult
    func makeKey(_ name: String) throws -> SigningKey {
        try SigningKey.generate(in: keys, name: name)
    }

    func signingKey(_ name: String) throws -> SigningKey { try SigningKey(file: keys + "/" + name + ".key") }
    func trustedKey(_ name: String) throws -> TrustedKey { try TrustedKey(file: keys + "/" + name + ".pub") }
    func policy(_ names: String...) throws -> TrustPolicy { TrustPolicy(trustedKeys: try names.map(trustedKey)) }
    func signer(_ names: String..., validity: TimeInterval = ManifestSigner.defaultValidity) throws -> ManifestSigner {
        ManifestSigner(keys: try names.map(signingKey), validity: validity)
    }

    /// Publishes demo `version` into `origin`, its manifest signed by `signer`; with
    /// `allowDowngrade`, also below the version published there now.
    static func publishDemo(_ version: String, into origin: String, signer: ManifestSigner?,
                            allowDowngrade: Bool = false) throws {
        try PublishingFolder(origin).pack(
            source: BundleFixtures.demoSource(version), name: "demo", version: version,
            options: .init(routes: ["www.example.com/app"], allowDowngrade: allowDowngrade), signer: signer)
    }

    /// Rewrites the payload of the signed manifest in `origin` with `transform`, signing it with `signer`
    /// (nil: keeping the old signatures, so they no longer match).
    static func editSignedManifest(in origin: String, signer: ManifestSigner?,
                                   _ transform: (inout Manifest) -> Void) throws {
        let path = origin + "/manifest.json"
        guard var manifest = try PublishedManifest.read(path)?.manifest else { throw TestSupportError("no \(path)") }
        transform(&manifest)
        if let signer {
            try FileSystem.writeAtomically(try signer.sign(manifest), to: path)
        } else {
            var envelope = try SignedEnvelope.parse(try FileSystem.read(path) ?? [], source: path)
            envelope.payload = Data(try manifest.encoded()).base64EncodedString()
            try FileSystem.writeAtomically(try envelope.encoded(), to: path)
        }
    }
}
