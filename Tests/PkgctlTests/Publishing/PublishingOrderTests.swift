import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The order of `pack` and `promote`'s writes as the kernel saw them (strace), as
/// `PublishCommandTests` reads `publish`'s: every file is flushed before it takes its name, and
/// its folder after, and `manifest.json` takes its name last, so a power loss at any instant
/// leaves a manifest that names only files already whole on disk.
@Suite struct PublishingOrderTests {
    let temp: TemporaryDirectory

    init() throws {
        temp = try TemporaryDirectory()
    }

    /// One call strace saw: a rename (from, to) or an fsync of a path.
    enum Call: Equatable {
        case rename(String, String)
        case fsync(String)
    }

    /// The successful renames and fsyncs (paths through `-y`) of pkgctl `arguments`, in the order
    /// they returned: a call another thread interrupted (`<unfinished ...>`) counts where it resumed.
    func trace(_ arguments: [String]) throws -> [Call] {
        let log = temp.path + "/strace-\(arguments[0])"
        _ = try runCommand("/usr/bin/strace", ["-f", "-qq", "-y", "-e", "trace=rename,renameat,renameat2,fsync,fdatasync",
                                               "-o", log, PkgctlProcess.executable] + arguments)
        var pending: [Substring: Call] = [:], calls: [Call] = []
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            let pid = line.prefix { $0 != " " }
            if line.contains(" resumed>") {
                if let call = pending.removeValue(forKey: pid), line.hasSuffix("= 0") { calls.append(call) }
            } else if let call = Self.call(in: line) {
                if line.hasSuffix("<unfinished ...>") { pending[pid] = call } else if line.hasSuffix("= 0") { calls.append(call) }
            }
        }
        return calls
    }

    /// The call a line of strace starts: `fsync(5</path>)`, or a rename's two quoted paths.
    static func call(in line: Substring) -> Call? {
        if line.contains("fsync(") {
            guard let open = line.firstIndex(of: "<"), let close = line[open...].firstIndex(of: ">") else { return nil }
            return .fsync(String(line[line.index(after: open)..<close]))
        }
        let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
        return quoted.count >= 4 ? .rename(String(quoted[1]), String(quoted[3])) : nil
    }

    /// Checks `calls` of a command that wrote into `folder`: the manifest is renamed last and its
    /// archive before it; every other name is content-named; every renamed file was fsynced
    /// before its rename, and its folder after it. Renames to temporary names (libzip's own) and
    /// inside a staging folder (precompressed copies, zipped and then removed) name nothing published.
    func expectSafeOrder(_ calls: [Call], in folder: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let renames = calls.enumerated().compactMap { index, call -> (Int, String, String)? in
            guard case .rename(let from, let to) = call, to.hasPrefix(folder + "/") else { return nil }
            let name = String(to.dropFirst(folder.count + 1))
            let temporary = name.split(separator: "/").contains { PublishedLayout.isTemporary(String($0), atTop: true) }
            return temporary ? nil : (index, from, to)
        }
        let names = renames.map { String($0.2.dropFirst(folder.count + 1)) }
        #expect(names.last == PublishedLayout.manifestName, "manifest.json last: \(names)", sourceLocation: sourceLocation)
        #expect(names.dropLast().last?.hasPrefix("manifests/") == true, "its archive just before: \(names)",
                sourceLocation: sourceLocation)
        #expect(names.dropLast().allSatisfy { PublishedLayout.namedDigest(of: $0) != nil },
                "every other name says its bytes: \(names)", sourceLocation: sourceLocation)
        for (index, from, to) in renames {
            #expect(calls[..<index].contains(.fsync(from)), "\(from) flushed before it became \(to)",
                    sourceLocation: sourceLocation)
            #expect(calls[index...].contains(.fsync(PathName.parent(to))), "\(PathName.parent(to)) flushed after \(to)",
                    sourceLocation: sourceLocation)
        }
        #expect(renames.count > 3, "\(names)", sourceLocation: sourceLocation)
    }

    @Test func packFlushesEveryFileBeforeItsNameAndNamesTheManifestLast() throws {
        let out = temp.path + "/out"
        try BundleFixtures.packDemo("1.0.0", into: out)
        let calls = try trace(["pack", BundleFixtures.demoSource("1.1.0"), "--name", "demo", "--version", "1.1.0",
                               "--out", out, "--route", "www.example.com/app", "--precompress"])
        expectSafeOrder(calls, in: out)
    }

    @Test func promoteFlushesEveryFileBeforeItsNameAndNamesTheManifestLast() throws {
        let staging = temp.path + "/staging", production = temp.path + "/production"
        try BundleFixtures.packDemo("1.0.0", into: staging)
        try BundleFixtures.packDemo("1.1.0", into: staging)
        try BundleFixtures.packDemo("1.0.0", into: production)
        let calls = try trace(["promote", staging, production, "demo", "1.1.0"])
        expectSafeOrder(calls, in: production)
        #expect(try PublishedManifest.read(production + "/manifest.json")?.manifest.packages.first?.version == "1.1.0")
    }
}
