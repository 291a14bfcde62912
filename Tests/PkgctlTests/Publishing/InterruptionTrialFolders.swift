import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The folders an interruption trial starts from, made once by real `pkgctl` runs: keys, three
/// sources of a 60-file app, a staging channel with 1.0.0 and 2.0.0, and one publishing folder
/// per starting state. A trial copies one of them and interrupts a command on the copy.
struct InterruptionTrialFolders {
    let temp: TemporaryDirectory
    /// The content key (`release.key`, `.pub`) and the online timestamp key (`online.key`).
    var keys: String { temp.path("keys") }
    /// `SOURCE/A`, `SOURCE/B` (2.0.0, other bytes) and `SOURCE/1` (1.0.0).
    func source(_ name: String) -> String { temp.path("source-" + name) }
    /// A channel with 1.0.0 and 2.0.0, timestamped: promote's source and publish's.
    var staging: String { temp.path("staging") }
    /// demo 1.0.0, signed.
    var one: String { temp.path("one") }
    /// demo 1.0.0, 1.5.0 and 2.0.0 packed one after another, signed and timestamped.
    var three: String { temp.path("three") }
    /// demo 1.0.0 then 2.0.0 rolled out to 10 %, signed.
    var rollingOut: String { temp.path("rolling-out") }
    /// What an origin served after `staging` held only 1.0.0: publish's destination.
    var origin: String { temp.path("origin") }

    init() throws {
        temp = try TemporaryDirectory(prefix: "pkgctl-interrupt")
        try Self.run(["keygen", "--out", keys, "--name", "release"])
        try Self.run(["keygen", "--out", keys, "--name", "online"])
        for (name, seed) in [("A", 2), ("B", 3), ("1", 1)] as [(String, UInt64)] {
            try BundleFixtures.makeTree(at: source(name), files: 60, size: 2048, seed: seed)
            try Data("<!doctype html><title>\(name)</title>".utf8).write(to: URL(fileURLWithPath: source(name) + "/index.html"))
        }
        try pack(source("1"), "1.0.0", into: staging)
        try Self.run(["timestamp", staging, "--key", keys + "/online.key"])
        try Self.run(["publish", staging, origin])
        try pack(source("A"), "2.0.0", into: staging)
        try Self.run(["timestamp", staging, "--key", keys + "/online.key"])
        try pack(source("1"), "1.0.0", into: one)
        try pack(source("1"), "1.0.0", into: three)
        try pack(source("B"), "1.5.0", into: three)
        try pack(source("A"), "2.0.0", into: three)
        try Self.run(["timestamp", three, "--key", keys + "/online.key"])
        try pack(source("1"), "1.0.0", into: rollingOut)
        try pack(source("A"), "2.0.0", into: rollingOut, ["--rollout", "10"])
    }

    /// `pkgctl pack SOURCE` as demo `version` into `out`, signed by the release key, with `extra`.
    func pack(_ source: String, _ version: String, into out: String, _ extra: [String] = []) throws {
        try Self.run(packArguments(source, version, into: out) + extra)
    }

    /// The arguments of that pack: route, precompressed copies (a staging folder to interrupt too), signed.
    func packArguments(_ source: String, _ version: String, into out: String) -> [String] {
        ["pack", source, "--name", "demo", "--version", version, "--out", out, "--route", "www.example.com/app",
         "--precompress", "--sign", keys + "/release.key"]
    }

    /// Runs pkgctl and requires it to succeed.
    static func run(_ arguments: [String], executable: String = PkgctlProcess.executable) throws {
        let result = try PkgctlProcess.run(arguments, executable: executable)
        try #require(result.status == 0, "pkgctl \(arguments.joined(separator: " ")): \(result.stderr)")
    }
}
