import PkgCore

extension Manifest {
    /// Puts `entries` in place of the releases of their slots (``ReleaseSlot``).
    mutating func replaceReleases(with entries: [ManifestEntry]) {
        let slots = Set(entries.map(ReleaseSlot.init))
        packages.removeAll { slots.contains(ReleaseSlot($0)) }
        packages += entries
    }

    /// Orders the releases by name, then newest first, then by runtime range: a stable order,
    /// so re-signing the same releases changes nothing.
    mutating func sortReleases() {
        packages.sort { a, b in
            if a.name != b.name { return a.name < b.name }
            if PackageVersion(a.version) != PackageVersion(b.version) { return PackageVersion(b.version) < PackageVersion(a.version) }
            return (a.runtime ?? "") < (b.runtime ?? "")
        }
    }
}
