import Testing
import PkgCrypto

/// PkgCrypto against the published test vectors (FIPS 180-2, RFC 4231, RFC 8032), so a
/// libcrypto call wired wrongly (a wrong algorithm name, a truncated length) fails here
/// rather than as a signature every device refuses.
@Suite struct PkgCryptoTests {
    private func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    @Test func sha256MatchesFIPS180Vectors() {
        #expect(hex(SHA256.hash(data: Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash(data: [UInt8]()))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func sha256CopyHashesOnApartFromItsOriginal() {
        var first = SHA256()
        first.update(data: Array("ab".utf8))
        var second = first
        first.update(data: Array("c".utf8))
        second.update(data: Array("x".utf8))
        #expect(hex(first.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(second.finalize() == SHA256.hash(data: Array("abx".utf8)))
        // finalize leaves the hasher as it was.
        #expect(first.finalize() == first.finalize())
    }

    @Test func hmacMatchesRFC4231TestCase2() {
        let code = HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(hex(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func ed25519MatchesRFC8032Test1() throws {
        let key = try Ed25519PrivateKey(seed: bytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(hex(key.publicKey.raw) == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let signature = key.signature(for: [])
        #expect(hex(signature) == "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        #expect(key.publicKey.isValidSignature(signature, for: []))
    }

    @Test func ed25519RefusesAlteredMessageSignatureAndKeyLength() throws {
        let key = Ed25519PrivateKey()
        let message = Array("manifest".utf8)
        var signature = key.signature(for: message)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: Array("manifesT".utf8)))
        #expect(!Ed25519PrivateKey().publicKey.isValidSignature(signature, for: message))
        signature[0] ^= 1
        #expect(!key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(Array(signature.prefix(63)), for: message))
        #expect(throws: Ed25519KeyError.self) { try Ed25519PublicKey(raw: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: Ed25519KeyError.self) { try Ed25519PrivateKey(seed: [UInt8](repeating: 1, count: 33)) }
    }
}
