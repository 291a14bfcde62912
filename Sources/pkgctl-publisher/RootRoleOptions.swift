import ArgumentParser
import FoundationEssentials
import PkgCore

/// The keys and thresholds of a root's roles, as `root init` and `root rotate` take them.
struct RootRoleOptions: ParsableArguments {
    @Option(name: .customLong("root-key"), help: ArgumentHelp("Public key (.pub) of the root role (repeatable).", valueName: "pubfile"))
    var rootKeys: [String] = []

    @Option(name: .customLong("root-threshold"), help: ArgumentHelp("How many root keys must sign a root.", valueName: "n"))
    var rootThreshold: Int?

    @Option(name: .customLong("content-key"),
            help: ArgumentHelp("Public key (.pub) that signs manifests (repeatable).", valueName: "pubfile"))
    var contentKeys: [String] = []

    @Option(name: .customLong("content-threshold"), help: ArgumentHelp("How many content keys must sign a manifest.", valueName: "n"))
    var contentThreshold: Int?

    @Option(name: .customLong("timestamp-key"),
            help: ArgumentHelp("Public key (.pub) that signs timestamp.json (repeatable).", valueName: "pubfile"))
    var timestampKeys: [String] = []

    @Option(name: .customLong("timestamp-threshold"), help: ArgumentHelp("How many timestamp keys must sign.", valueName: "n"))
    var timestampThreshold: Int?

    @Flag(name: .customLong("no-timestamp"), help: "Devices read no timestamp.json (rotate: drop the timestamp role).")
    var noTimestamp = false

    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Days until the root expires (default 365).", valueName: "days"))
    var expiresIn: Int = 365

    func validate() throws {
        guard expiresIn >= 1 else { throw ValidationError("--expires-in must be at least 1 day") }
        guard !noTimestamp || timestampKeys.isEmpty else { throw ValidationError("--no-timestamp takes no --timestamp-key") }
    }

    /// A root of `version` with the roles given here, each role not given taken from `previous`.
    func document(version: UInt64, previous: RootDocument?, now: Date = Date()) throws -> RootDocument {
        var keys = try previous.map { previous in
            try RootDocument.roleNames.flatMap { try previous.keys(of: $0) }
        } ?? []
        var roles = previous?.roles ?? [:]
        let given: [(String, [String], Int?)] = [("root", rootKeys, rootThreshold), ("content", contentKeys, contentThreshold),
                                                 ("timestamp", timestampKeys, timestampThreshold)]
        for (name, files, threshold) in given {
            if !files.isEmpty {
                let roleKeys = try files.map(TrustedKey.init(file:))
                keys += roleKeys
                roles[name] = RootRole(keyids: roleKeys.map(\.id), threshold: threshold ?? 1)
            } else if let threshold {
                guard roles[name] != nil else { throw ValidationError("--\(name)-threshold needs --\(name)-key") }
                roles[name]?.threshold = threshold
            }
        }
        if noTimestamp { roles["timestamp"] = nil }
        let named = Set(roles.values.flatMap(\.keyids))
        return RootDocument(version: version, expires: Date(timeIntervalSince1970: (now.timeIntervalSince1970
                                                                                    + Double(expiresIn) * 86_400).rounded(.down)),
                            keys: keys.filter { named.contains($0.id) }, roles: roles)
    }
}
