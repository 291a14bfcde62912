import Foundation
import Testing
@testable import PkgCore

/// Key files are PEM as OpenSSL writes them, read by pkgctl's own `PEMBlock`: the lax
/// forms other tools write (CRLF, spaces at line ends, other line lengths, text around the
/// block, a byte order mark) read as the same key, and anything but one block is refused by name.
@Suite struct KeyFileTests {
    let temp: TemporaryDirectory
    let fixtures: SigningFixtures

    init() throws {
        temp = try TemporaryDirectory()
        fixtures = SigningFixtures(in: temp.path)
    }

    func publicKeyText() throws -> String {
        try fixtures.makeKey("release")
        return String(decoding: try #require(try FileSystem.read(fixtures.keys + "/release.pub")), as: UTF8.self)
    }

    func read(_ text: String, as name: String) throws -> TrustedKey {
        try TrustedKey(file: try temp.write(Array(text.utf8), to: name))
    }

    @Test func laxFormsReadAsTheSameKey() throws {
        let text = try publicKeyText()
        let key = try fixtures.trustedKey("release")
        let lines = text.split(separator: "\n").map(String.init)
        let body = lines.dropFirst().dropLast().joined()
        var shortLines: [String] = [lines[0]]
        for start in stride(from: 0, to: body.count, by: 16) {
            shortLines.append(String(body.dropFirst(start).prefix(16)))
        }
        shortLines.append(lines[lines.count - 1])
        let spaced: [String] = lines.map { $0 + "  " }
        let forms: [String: String] = [
            "bom.pub": "\u{FEFF}" + text,
            "text-before.pub": "my release key\n" + text,
            "text-after.pub": text + "ED25519 Public-Key:\npub:\n    da:d2:7e\n",
            "crlf.pub": lines.joined(separator: "\r\n") + "\r\n",
            "spaces.pub": "\n\n" + spaced.joined(separator: "\n") + "\n\n",
            "short-lines.pub": shortLines.joined(separator: "\n"),
        ]
        for (name, form) in forms {
            #expect(try read(form, as: name).id == key.id, "\(name)")
        }
        #expect(PEMBlock(parsing: text)?.text == text.trimmingWhitespace(), "pkgctl writes back the block it reads")
    }

    /// `openssl pkey -text` prints the key's fields after the block; such a file is trusted as the key.
    @Test func opensslsTextOutputReadsAsItsKey() throws {
        let privateKey = temp.path + "/theirs.key"
        _ = try OpenSSL.run(["genpkey", "-algorithm", "ed25519", "-out", privateKey])
        let plain = try read(try OpenSSL.run(["pkey", "-in", privateKey, "-pubout"]), as: "plain.pub")
        let withText = try OpenSSL.run(["pkey", "-in", privateKey, "-pubout", "-text"])
        #expect(withText.contains("ED25519 Public-Key:"))
        #expect(try read(withText, as: "text.pub").id == plain.id)
    }

    @Test func anythingButOneBlockIsRefusedByName() throws {
        let text = try publicKeyText()
        let refused: [String: String] = [
            "two.pub": text + text,
            "two-with-text-between.pub": text + "and another\n" + text,
            "labels-differ.pub": text.replacingOccurrences(of: "END PUBLIC KEY", with: "END PRIVATE KEY"),
            "not-base64.pub": text.replacingOccurrences(of: "MCowBQYDK2Vw", with: "MCowBQYDK2V*"),
            "empty.pub": "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n",
            "no-end.pub": String(text.split(separator: "\n").dropLast().joined(separator: "\n")),
        ]
        for (name, form) in refused {
            let error = #expect(throws: PkgError.self, "\(name)") { try read(form, as: name) }
            #expect(error?.code == .invalidKey, "\(name)")
            #expect(error?.message == "\(temp.path)/\(name) is not a PEM key file", "\(name)")
        }
        let otherLabel = #expect(throws: PkgError.self) {
            try read(text.replacingOccurrences(of: "PUBLIC KEY", with: "CERTIFICATE"), as: "cert.pub")
        }
        #expect(otherLabel?.code == .invalidKey)
        #expect(otherLabel?.message == "\(temp.path)/cert.pub is not an Ed25519 public key (SubjectPublicKeyInfo)")
    }
}
