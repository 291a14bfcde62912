import Foundation
import Testing

/// The helper every command test runs pkgctl through.
@Suite struct PkgctlProcessTests {
    /// A child that writes more to stderr than a pipe holds (64 KiB) before it writes to
    /// stdout and exits: read one pipe after the other, this would block both for ever.
    @Test func aChildFillingStderrBeforeStdoutDoesNotHang() throws {
        let launcher = ["/bin/sh", "-c", "head -c 200000 /dev/zero | tr '\\\\0' x >&2; exec \"$0\" \"$@\""]
        let result = try PkgctlProcess.run(["--version"], launcher: launcher)
        #expect(result.status == 0)
        #expect(result.stderr.count == 200_000)
        #expect(result.stdout == "0.1.0\n")
    }
}
