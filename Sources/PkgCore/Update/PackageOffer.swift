/// What a manifest offers one device for one package, the device's host runtime considered.
struct PackageOffer {
    /// The package.
    var name: String
    /// The newest release whose range holds the runtime (any release when the device states
    /// none), with every release's revocations of the package; nil when none fits.
    var fitting: ManifestEntry?
    /// The newest release of the package, whatever its range.
    var newest: ManifestEntry
    /// Versions of the package revoked by any of its releases.
    var revoked: [String]

    /// The manifest's packages in order of first listing, one offer each.
    static func offers(in manifest: Manifest, runtime: RuntimeVersion?) -> [PackageOffer] {
        var order: [String] = []
        var releases: [String: [ManifestEntry]] = [:]
        for entry in manifest.packages {
            if releases[entry.name] == nil { order.append(entry.name) }
            releases[entry.name, default: []].append(entry)
        }
        return order.map { name in
            let all = releases[name] ?? []
            let revoked = manifest.revocations(of: name)
            func newest(_ entries: [ManifestEntry]) -> ManifestEntry? {
                entries.max { PackageVersion($0.version) < PackageVersion($1.version) }
            }
            var fitting = newest(all.filter { $0.fits(runtime) })
            fitting?.revoked = revoked
            return PackageOffer(name: name, fitting: fitting, newest: newest(all) ?? all[0], revoked: revoked)
        }
    }
}
