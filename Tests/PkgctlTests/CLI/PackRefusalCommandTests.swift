import Foundation
import Testing

/// `pack` refusing its arguments leaves nothing behind.
@Suite struct PackRefusalCommandTests {
    let temp: TemporaryDirectory
    var out: String { temp.path + "/out" }

    init() throws { temp = try TemporaryDirectory() }

    @Test func aRefusedPackLeavesNoOutputFolder() throws {
        for extra in [["--route", "http://www.example.com/app"], ["--spa-fallback", "missing.html"]] {
            let result = try PkgctlProcess.run(["pack", BundleFixtures.demoSource("1.0.0"), "--name", "demo",
                                                "--version", "1.0.0", "--out", out] + extra)
            #expect(result.status != 0, "\(extra) is refused")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(extra): no OUT_DIR (nor its lock) is left behind")
        }
    }
}
