import Foundation
import Testing

/// The Debian package `scripts/package` builds. A release build takes minutes,
/// so `scripts/test` builds it once before the suite and names it in
/// `PKGCTL_DEB`; without it these tests are skipped. They run whatever instruments the suite: the
/// packages hold the release build.
enum DebianPackage {
    static let path = ProcessInfo.processInfo.environment["PKGCTL_DEB"] ?? ""
    static var isAvailable: Bool { !path.isEmpty && FileManager.default.fileExists(atPath: path) }
    /// The folder `scripts/package` wrote it and the other packages to (`dist/`).
    static var folder: String { URL(fileURLWithPath: path).deletingLastPathComponent().path }
    /// The version in its name: the packages are built together, with one version.
    static var version: String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        return String(name.dropFirst("pkgctl_".count).dropLast("_amd64.deb".count))
    }
    /// Package `name` of that version, built beside it.
    static func sibling(_ name: String, architecture: String = "amd64") -> String {
        folder + "/\(name)_\(version)_\(architecture).deb"
    }
    /// The publisher's package, built beside it: `pkgctl` runs its binary for the publisher's commands.
    static var publisherPath: String { sibling("pkgctl-publisher") }
    /// Where the publisher's package installs its binary.
    static let publisherBinary = "usr/libexec/pkgctl/pkgctl-publisher"

    static let units = ["pkgctl-update.service", "pkgctl-update.timer", "pkgctl-serve.service"]
    static let unitDirectory = "/usr/lib/systemd/system"

    /// The device's commands (package pkgctl) that get a man page of their own.
    static let deviceCommands = ["update", "status", "rollback", "unhold", "gc", "verify", "resolve", "serve"]
    /// The publisher's commands (package pkgctl-publisher) that get a man page of their own.
    static let publisherCommands = ["pack", "rollout", "revoke", "publish", "prune", "promote", "sign", "keygen",
                                    "fleet-report", "fleet-watch", "root-init"]

    /// What a binary of the packages may need: Debian's libraries, never the toolchain's.
    static let debianLibraries: Set = ["ld-linux-x86-64.so.2", "libbrotlienc.so.1", "libc.so.6", "libcrypto.so.3",
                                       "libcurl.so.4", "libgcc_s.so.1", "libm.so.6", "libstdc++.so.6", "libz.so.1", "libzip.so.4",
                                       "libzstd.so.1"]
    /// What the publisher's binary may need besides: the image codecs of `pack --image-variants`
    /// (PkgImageVariants), which neither the device's pkgctl nor the resolver library may. libavif
    /// is not among them: it is opened on first use.
    static let imageLibraries: Set = ["libjpeg.so.62", "libpng16.so.16", "libwebp.so.7"]

    /// `readelf -d` of the ELF file at `path`, and its NEEDED libraries, sorted.
    static func dynamicSection(of path: String) throws -> (text: String, needed: [String]) {
        let text = try PackagingCommand.require("/usr/bin/readelf", ["-d", path])
        let needed = text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .compactMap { $0.split(separator: "[").last?.dropLast() }.map(String.init).sorted()
        return (text, needed)
    }

    /// Expects lintian to report no error or warning on `debs` and to exit 0.
    static func expectLintianClean(_ debs: [String]) throws {
        let result = try PackagingCommand.run("/usr/bin/lintian", ["--tag-display-limit", "0"] + debs)
        let tags = result.stdout.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        #expect(tags.isEmpty, "\(tags.joined(separator: "\n"))")
        #expect(result.status == 0, "\(result.all)")
    }

    /// `dpkg-deb -c` of `deb`, each entry checked to be owned by root: path → (mode, link target),
    /// e.g. "./usr/include/pkgctl/resolver.h" → ("-rw-r--r--", nil).
    static func contents(_ deb: String) throws -> [String: (mode: String, target: String?)] {
        // lrwxrwxrwx root/root 0 2026-11-23 23:52 ./usr/lib/x86_64-linux-gnu/libpkgctl-resolver.so -> libpkgctl-resolver.so.0
        var entries: [String: (mode: String, target: String?)] = [:]
        for line in try PackagingCommand.require("/usr/bin/dpkg-deb", ["-c", deb]).split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            try #require(fields.count == 6, "\(line)")
            #expect(fields[1] == "root/root", "\(line)")
            let name = fields[5].components(separatedBy: " -> ")
            entries[name[0]] = (String(fields[0]), name.count == 2 ? name[1] : nil)
        }
        return entries
    }

    /// The files of `debs` (by default the device's package) unpacked (`dpkg -x`) into one new directory.
    static func unpack(_ debs: [String] = [path]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "pkgctl-deb")
        for deb in debs { try PackagingCommand.require("/usr/bin/dpkg", ["-x", deb, directory.path]) }
        return directory
    }

    /// An empty root for `dpkg --root` whose database lists this system's packages that `debs`
    /// depend on (as installed, with empty file lists), so dpkg checks Depends against Debian 12's
    /// packages; and the dpkg options that install into it with maintainer scripts run chrootless
    /// (DPKG_ROOT set: they must not touch this system).
    static func throwawayRoot(for debs: [String]) throws -> (root: TemporaryDirectory, dpkg: [String]) {
        let root = try TemporaryDirectory(prefix: "pkgctl-root")
        for folder in ["var/lib/dpkg/updates", "var/lib/dpkg/info", "var/lib/dpkg/triggers", "var/log", "usr/bin"] {
            try root.makeDirectory(folder)
        }
        let installing = try debs.map { try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", $0, "Package"]) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        var names: [String] = []
        for deb in debs {
            let depends = try PackagingCommand.require("/usr/bin/dpkg-deb", ["-f", deb, "Depends"])
            names += depends.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
                .filter { !installing.contains($0) && !names.contains($0) }
        }
        let database = try PackagingCommand.require("/usr/bin/dpkg-query", ["--status"] + names)
        try root.write(Array(database.utf8), to: "var/lib/dpkg/status")
        for name in try PackagingCommand.require("/usr/bin/dpkg-query", ["-W", "-f=${binary:Package}\n"] + names)
            .split(separator: "\n") {
            try root.write([], to: "var/lib/dpkg/info/\(name).list")
        }
        return (root, ["--root=\(root.path)", "--force-script-chrootless", "--log=\(root.path("var/log/dpkg.log"))"])
    }

    /// The toolchain the tests themselves load the Swift runtime from (e.g. /opt/swift):
    /// what a machine without Swift lacks.
    static func toolchainRoot() throws -> String {
        // Read to the end: /proc files have no size to go by.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let library = try #require(maps.split(separator: "\n").lazy.compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.first { $0.hasSuffix("/libswiftCore.so") }, "the tests do not load libswiftCore.so dynamically")
        let suffix = "/usr/lib/swift/linux/libswiftCore.so"
        let root = library.hasSuffix(suffix) ? String(library.dropLast(suffix.count))
            : (library as NSString).deletingLastPathComponent
        #expect(!["", "/", "/usr"].contains(root), "toolchain at \(root): hiding it would hide the system")
        return root
    }
}
