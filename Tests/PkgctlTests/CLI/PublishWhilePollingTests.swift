import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Devices polling an origin while a release is being published to it: with `pkgctl publish` none
/// ever fails or reports a failure, and `fleet watch` never halts the good release; a copy in the
/// order a parallel sync may choose (the manifest first) makes a device fail at once.
@Suite struct PublishWhilePollingTests {
    let temp: TemporaryDirectory
    let out: String
    let dest: String
    let origin: NginxOrigin
    var manifestURL: String { origin.baseURL + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
        dest = try temp.makeDirectory("dest")
        origin = try NginxOrigin(root: dest, accessLog: true)
    }

    /// Files in a release (fewer under a sanitizer, whose pkgctl is ten times slower), a tenth of them
    /// new in each release, so a publish takes a while.
    static let files = Sanitizer.isActive ? 60 : 300

    /// A release of ``files`` files of 2 KB.
    func pack(_ release: Int, _ extra: [String] = []) throws {
        let source = temp.path + "/src"
        if release == 1 { try BundleFixtures.makeTree(at: source, files: Self.files, size: 2_000, seed: 1) }
        try BundleFixtures.makeTree(at: source + "/changed", files: Self.files / 10, size: 2_000, seed: UInt64(release) + 100)
        let packed = try PkgctlProcess.run(["pack", source, "--name", "app", "--version", "1.0.\(release)", "--out", out,
                                            "--route", "www.example.com/app"] + extra)
        #expect(packed.status == 0, "\(packed.stderr)")
    }

    func update(_ device: Int) throws -> PkgctlProcess.Result {
        try Self.update(device, in: temp.path, manifest: manifestURL)
    }

    static func update(_ device: Int, in folder: String, manifest: String) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", folder + "/device\(device)", "--manifest", manifest,
                               "--device-id", "device\(device)"])
    }

    /// Runs `work` while three devices poll in a loop (each at least once, at most 400 times); returns every poll's result.
    func whileDevicesPoll(_ work: () throws -> Void) throws -> [PkgctlProcess.Result] {
        let done = PosixMutex(false), results = PosixMutex<[PkgctlProcess.Result]>([])
        let finished = DispatchGroup()
        let folder = temp.path, manifest = manifestURL
        for device in 0..<3 {
            finished.enter()
            Thread {
                defer { finished.leave() }
                for run in 0..<400 where run == 0 || !done.withLock({ $0 }) {
                    guard let result = try? Self.update(device, in: folder, manifest: manifest) else { return }
                    results.withLock { $0.append(result) }
                }
            }.start()
        }
        defer {
            done.withLock { $0 = true }
            finished.wait()
        }
        try work()
        done.withLock { $0 = true }
        finished.wait()
        return results.withLock { $0 }
    }

    @Test func devicesPollingThroughAPublishNeverFail() throws {
        try pack(1)
        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        for device in 0..<3 { #expect(try update(device).status == 0) }

        var polls: [PkgctlProcess.Result] = []
        var watched: [String] = []
        let last = Sanitizer.isActive ? 3 : 5
        for release in 2...last {
            // The last release rolls out in steps that fleet watch takes on the devices' reports.
            try pack(release, release == last ? ["--rollout", "50"] : [])
            polls += try whileDevicesPoll {
                let published = try PkgctlProcess.run(["publish", out, dest])
                #expect(published.status == 0, "\(published.stderr)")
            }
            let log = try #require(origin.combinedAccessLogPath)
            _ = origin.settledAccessLog()
            let watch = try PkgctlProcess.run(["fleet", "watch", out, "app", "--log", log, "--interval", "0",
                                               "--max-failure-rate", "1", "--min-devices", "1", "--steps", "50,100"])
            watched.append(watch.stdout)
            #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        }
        let failed = polls.filter { $0.status != 0 }
        #expect(failed.isEmpty, "\(failed.count) of \(polls.count) polls failed: \(failed.first?.stderr ?? "")")
        #expect(polls.count >= 3 * (last - 1), "every device polled through every publish: \(polls.count)")
        #expect(origin.outcomeReports().allSatisfy { $0.outcome != .failed }, "no failure reported")
        #expect(!watched.joined().contains("halt"), "\(watched)")
        // Whether fleet watch advanced depends on which devices the salt put in the first 50 %; every
        // device takes the release once it reaches them all.
        #expect(try PkgctlProcess.run(["rollout", out, "app", "100"]).status == 0)
        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        for device in 0..<3 { #expect(try update(device).status == 0) }
        #expect((0..<3).map { PackageStore(root: temp.path + "/device\($0)").activeVersion(of: "app") }
                == Array(repeating: "1.0.\(last)", count: 3))
    }

    @Test func theManifestUploadedFirstFailsADevice() throws {
        try pack(1)
        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        #expect(try update(0).status == 0)
        try pack(2)
        // What a parallel `aws s3 sync` may do: the new manifest lands before the files it names.
        try FileManager.default.removeItem(atPath: dest + "/manifest.json")
        try FileManager.default.copyItem(atPath: out + "/manifest.json", toPath: dest + "/manifest.json")
        let early = try update(0)
        #expect(early.status == 1 && early.stderr.contains("HTTP 404"), "\(early.stderr)")
        #expect(origin.outcomeReports().contains { $0.outcome == .failed && $0.release == "1.0.2" },
                "the failure is reported against the good release")
        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        #expect(try update(0).status == 0)
    }
}
