import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `update` and `serve` as a service runs them: settings from a config file and
/// the environment, flags on top, and a bad file refused with one line and 78.
@Suite struct ConfigFileTests {
    let temp: TemporaryDirectory
    let origin: String
    let root: String
    let config: String
    var manifestURL: String { "file://" + origin + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        root = temp.path + "/store"
        config = temp.path + "/config.json"
    }

    private func writeConfig(_ json: String) throws {
        try json.write(toFile: config, atomically: true, encoding: .utf8)
    }

    @Test func updateNeedsNoFlagsWhenTheConfigFileSaysEverything() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        try writeConfig(#"{"root": "\#(root)", "update": {"manifest": "\#(manifestURL)", "keep": 1}}"#)

        let update = try PkgctlProcess.run(["update"], environment: ["PKGCTL_CONFIG": config])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout == "demo: installed 1.0.0\n")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.0.0")

        // keep 1 from the file: the upgrade removes 1.0.0.
        try BundleFixtures.publishDemo(["1.1.0"], into: origin)
        let upgrade = try PkgctlProcess.run(["update", "--config", config])
        #expect(upgrade.stdout.contains("removed demo 1.0.0"), "\(upgrade.stdout)")
        #expect(!FileManager.default.fileExists(atPath: root + "/packages/demo/1.0.0"))
    }

    /// A service sets `--quiet` or `--json` where it sets everything else (README: "every
    /// option of update can come from the config file or the environment").
    @Test func quietAndJSONComeFromTheConfigFileOrTheEnvironment() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        try writeConfig(#"{"root": "\#(root)", "update": {"manifest": "\#(manifestURL)", "quiet": true}}"#)
        let quiet = try PkgctlProcess.run(["update", "--config", config])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.0.0")

        try BundleFixtures.publishDemo(["1.1.0"], into: origin)
        try writeConfig(#"{"root": "\#(root)", "update": {"manifest": "\#(manifestURL)", "json": true}}"#)
        let json = try PkgctlProcess.run(["update", "--config", config])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try JSONDecoder().decode(UpdateReport.self, from: Data(json.stdout.utf8))
        #expect(report.packages.map(\.action) == [.upgraded])

        try writeConfig(#"{"root": "\#(root)", "update": {"manifest": "\#(manifestURL)"}}"#)
        let environment = try PkgctlProcess.run(["update", "--config", config], environment: ["PKGCTL_UPDATE_QUIET": "true"])
        #expect(environment.status == 0)
        #expect(environment.stdout.isEmpty, "\(environment.stdout)")
        // A bad config value is then reported as JSON too, as --json would.
        try writeConfig(#"{"root": "\#(root)", "update": {"manifest": "\#(manifestURL)", "json": true, "keep": 0}}"#)
        let refused = try PkgctlProcess.run(["update", "--config", config])
        #expect(refused.status == 78)
        let failure = try #require(try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: String])
        #expect(failure["errorCode"] == "invalidConfiguration")
    }

    /// One style for every refusal of the command line: one `pkgctl:` line and exit 64,
    /// whether the argument parser or pkgctl's own range check refuses.
    @Test(arguments: [
        (["gc", "--keep", "0"], "pkgctl: --keep must be at least 1\n"),
        (["pack", "SRC", "--name", "demo", "--version", "1", "--out", "OUT", "--rollout", "101"],
         "pkgctl: --rollout must be 0 to 100 (got 101.0)\n"),
        (["sign", "manifest.json", "--key", "k.key", "--expires-in", "0"], "pkgctl: --expires-in must be at least 1 day\n"),
        (["rollout", "OUT", "demo", "101"], "pkgctl: percent must be 0 to 100 (got 101)\n"),
        (["update", "--manifest", "file:///x", "--jitter=-1"], "pkgctl: --jitter must be 0 to 86400 seconds\n"),
        (["update", "--manifest", "file:///x", "--keep", "0"], "pkgctl: --keep must be at least 1\n"),
        (["update", "--jitter", "-1"], "pkgctl: Missing value for '--jitter <seconds>'\n"),
        (["update", "--no-such-flag"],
         "pkgctl: Unknown option '--no-such-flag' for 'pkgctl update' (pkgctl update --help lists its options)\n"),
        (["no-such-command"], nil),
    ] as [([String], String?)])
    func everyRefusalOfTheCommandLineIsOneLineAndExit64(arguments: [String], message: String?) throws {
        let result = try PkgctlProcess.run(arguments, environment: ["PKGCTL_ROOT": root])
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("pkgctl: "), "\(arguments): \(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
        if let message { #expect(result.stderr == message, "\(arguments)") }
        #expect(!FileManager.default.fileExists(atPath: root), "nothing was created")
    }

    @Test func flagsOverrideTheEnvironmentWhichOverridesTheFile() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let elsewhere = temp.path + "/elsewhere", third = temp.path + "/third"
        try writeConfig(#"{"root": "\#(root)", "update": {"manifest": "file:///nonexistent/manifest.json"}}"#)

        let fromEnvironment = try PkgctlProcess.run(["update", "--config", config],
                                                    environment: ["PKGCTL_UPDATE_MANIFEST": manifestURL,
                                                                  "PKGCTL_ROOT": elsewhere])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(PackageStore(root: elsewhere).activeVersion(of: "demo") == "1.0.0")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == nil)

        let fromFlags = try PkgctlProcess.run(["update", "--config", config, "--root", third, "--manifest", manifestURL],
                                              environment: ["PKGCTL_ROOT": elsewhere])
        #expect(fromFlags.status == 0, "\(fromFlags.stderr)")
        #expect(PackageStore(root: third).activeVersion(of: "demo") == "1.0.0")

        let shown = try PkgctlProcess.run(["config", "--config", config],
                                          environment: ["PKGCTL_UPDATE_KEEP": "5", "PKGCTL_ROOT": ""])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        func line(_ key: String) -> [Substring]? { lines.first { $0.first.map(String.init) == key } }
        #expect(shown.stdout.hasPrefix("config file: \(config)\n"))
        #expect(line("root") == [Substring("root"), Substring(root), Substring("(\(config))")])
        #expect(line("update.keep") == ["update.keep", "5", "(PKGCTL_UPDATE_KEEP)"])
        #expect(line("update.attempts") == ["update.attempts", "4", "(default)"])
        #expect(line("serve.port") == ["serve.port", "8080", "(default)"])
    }

    @Test(arguments: [
        (#"{"update": {"manfest": "x"}}"#, "config.json: unknown key 'update.manfest'"),
        (#"{"update": {"keep": "two"}}"#, "config.json: update.keep: expected an integer"),
        (#"{"update": {"keep": 0}}"#, "config.json: update.keep must be at least 1"),
        (#"{"update": {"trusted-key": "one.pub"}}"#, "config.json: update.trusted-key: expected a list of strings"),
        (#"{"update": {"trusted-key": ["one.pub", 2]}}"#, "config.json: update.trusted-key: expected a list of strings"),
        (#"{"update": {"keep": 2.5}}"#, "config.json: update.keep: expected an integer"),
        (#"{"update": {"quiet": "yes"}}"#, "config.json: update.quiet: expected true or false"),
        (#"{"serve": {"port": 70000}}"#, "config.json: serve.port must be 0-65535"),
        (#"{"update": 3}"#, "config.json: update: expected an object"),
        (#"{"update": {"keep": 1"#, "config.json: not valid JSON"),
        (#"["root"]"#, "config.json: expected a JSON object at the top level"),
    ])
    func aBadConfigFileIsOneLineNamingFileAndKeyAndExits78(json: String, message: String) throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        try writeConfig(json)
        let command = message.contains("serve.") ? ["serve", "--offline"] : ["update", "--manifest", manifestURL]
        let result = try PkgctlProcess.run(command + ["--config", config, "--root", root])
        #expect(result.status == 78)
        #expect(result.stderr == "pkgctl: \(temp.path)/\(message)\n")
        #expect(!FileManager.default.fileExists(atPath: root + "/packages"), "nothing installed")
    }

    @Test func aBadEnvironmentValueOrAMissingFileIsRefusedByName() throws {
        let badValue = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL],
                                             environment: ["PKGCTL_UPDATE_ATTEMPTS": "many"])
        #expect(badValue.status == 78)
        #expect(badValue.stderr == "pkgctl: PKGCTL_UPDATE_ATTEMPTS: update.attempts: expected an integer\n")

        let missing = try PkgctlProcess.run(["status", "--config", temp.path + "/none.json"])
        #expect(missing.status == 78)
        #expect(missing.stderr == "pkgctl: config file \(temp.path)/none.json: cannot be read (No such file or directory)\n")

        let directory = try PkgctlProcess.run(["status", "--config", temp.path])
        #expect(directory.status == 78)
        #expect(directory.stderr == "pkgctl: config file \(temp.path): not a regular file\n")

        let outOfRange = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL, "--keep", "0"])
        #expect(outOfRange.status == 64, "a flag out of range is bad usage")
        #expect(outOfRange.stderr == "pkgctl: --keep must be at least 1\n")

        let noManifest = try PkgctlProcess.run(["update", "--root", root], environment: ["PKGCTL_CONFIG": ""])
        #expect(noManifest.status == 78)
        #expect(noManifest.stderr.hasPrefix("pkgctl: no manifest URL: pass --manifest, or set update.manifest in "))
    }

    @Test func serveTakesItsAddressFromTheConfigFile() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL]).status == 0)
        try writeConfig(#"{"root": "\#(root)", "serve": {"bind": "127.0.0.1", "port": 0, "offline": true, "quiet": true}}"#)
        let (process, out, _) = try PkgctlProcess.start(["serve", "--config", config])
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        #expect(banner.hasPrefix("serving \(root) on http://127.0.0.1:"), "\(banner)")
        #expect(!banner.contains(":8080/"), "port 0 from the file, not the default")
    }

    /// The file is JSON as people write it: a whole number where a decimal is expected, a list
    /// of strings, `null` for "not set here", and 1 for true (as swift-configuration's reader took it).
    @Test func wholeNumbersListsAndNullsReadAsWritten() throws {
        try writeConfig(#"{"update": {"health-timeout": 5, "jitter": 0.5, "keep": null, "trusted-key": ["a.pub", "b.pub"], "quiet": 1}}"#)
        let shown = try PkgctlProcess.run(["config", "--config", config], environment: ["PKGCTL_ROOT": ""])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        func line(_ key: String) -> [Substring]? { lines.first { $0.first.map(String.init) == key } }
        #expect(line("update.health-timeout") == ["update.health-timeout", "5.0", Substring("(\(config))")])
        #expect(line("update.jitter") == ["update.jitter", "0.5", Substring("(\(config))")])
        #expect(line("update.keep") == ["update.keep", "2", "(default)"])
        #expect(line("update.quiet") == ["update.quiet", "true", Substring("(\(config))")], "a number, as the earlier reader took it")
        #expect(line("update.trusted-key")?.dropFirst().first.map(String.init)?.contains("a.pub") == true, "\(shown.stdout)")
    }
}
