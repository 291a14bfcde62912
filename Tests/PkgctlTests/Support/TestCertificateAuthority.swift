import Foundation

/// A throwaway certificate authority and a server certificate it signed for
/// `IP:127.0.0.1` and `DNS:localhost`, made with the `openssl` command-line tool
/// (EC P-256 keys, valid for two days).
///
/// ```swift
/// let authority = try TestCertificateAuthority(in: directory.path)
/// var options = TransferOptions(caFile: authority.caFile)
/// ```
struct TestCertificateAuthority: Sendable {
    /// PEM certificate of the authority: what a client trusts (`--ca-file`, `CURLOPT_CAINFO`).
    let caFile: String
    /// PEM certificate of the server, signed by the authority.
    let certificateFile: String
    /// PEM private key of the server, unencrypted.
    let keyFile: String

    /// Generates the authority and the server certificate as files in `directory`.
    init(in directory: String) throws {
        caFile = "\(directory)/ca.pem"
        certificateFile = "\(directory)/server.pem"
        keyFile = "\(directory)/server.key"
        let caKey = "\(directory)/ca.key"
        let request = "\(directory)/server.csr"
        let extensions = "\(directory)/server.ext"
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        try runCommand("/usr/bin/openssl", ["req", "-x509"] + ec + [
            "-keyout", caKey, "-out", caFile, "-days", "2", "-subj", "/CN=pkgctl test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try runCommand("/usr/bin/openssl", ["req"] + ec + [
            "-keyout", keyFile, "-out", request, "-subj", "/CN=localhost",
        ])
        try Data("""
            basicConstraints = CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1, DNS:localhost

            """.utf8).write(to: URL(fileURLWithPath: extensions))
        try runCommand("/usr/bin/openssl", [
            "x509", "-req", "-in", request, "-CA", caFile, "-CAkey", caKey, "-CAcreateserial",
            "-out", certificateFile, "-days", "2", "-extfile", extensions,
        ])
    }
}

/// Runs `executable` with `arguments` to its end and returns what it printed on standard
/// output; throws with its standard error when it exits non-zero. For short commands only
/// (`openssl`, `sha256sum`): output is read after the process exits.
@discardableResult
func runCommand(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = ProcessLaunch.pipe()
    let errors = ProcessLaunch.pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try ProcessLaunch.run(process)
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let complaint = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TestSupportError(
            "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                + String(decoding: complaint, as: UTF8.self))
    }
    return String(decoding: printed, as: UTF8.self)
}
