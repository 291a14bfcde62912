/// How an installed version's files differ from its index.
public struct VerificationReport: Sendable, Hashable, Codable {
    /// The package.
    public var name: String
    /// The version checked.
    public var version: String
    /// Files whose size or SHA-256 changed.
    public var changed: [String]
    /// Files in the index that are gone.
    public var missing: [String]
    /// Files present that the index does not list.
    public var unexpected: [String]

    /// How many images the version holds as a variant instead of their original, by variant
    /// (`update --accept-images`; ``ImageVariantSelection``): `["webp": 12]`.
    public var imageVariants: [String: Int] = [:]

    /// True when the files match the index exactly.
    public var isIntact: Bool { changed.isEmpty && missing.isEmpty && unexpected.isEmpty }
}

extension PackageStore {
    /// Re-hashes every retained version of `name` (or of every package) against
    /// the file index written at install.
    public func verify(_ name: String? = nil) throws -> [VerificationReport] {
        let names = try name.map { [$0] } ?? packageNames()
        var reports: [VerificationReport] = []
        for name in names {
            let records = try retainedVersions(of: name)
            if records.isEmpty {
                throw PkgError(.notInstalled, "\(name) is not installed under \(layout.root)")
            }
            for record in records {
                reports.append(try verify(record))
            }
        }
        return reports
    }

    private func verify(_ record: VersionRecord) throws -> VerificationReport {
        let directory = layout.versionDirectory(record.entry.name, record.entry.version)
        let present = try regularFiles(under: directory)
        var report = VerificationReport(name: record.entry.name, version: record.entry.version,
                                        changed: [], missing: [], unexpected: [])
        for (path, expected) in record.index.files.sorted(by: { $0.key < $1.key }) {
            guard present.contains(path) else {
                report.missing.append(path)
                continue
            }
            let actual = try FileHasher.hash(file: directory + "/" + path)
            if actual.size != expected.size || actual.sha256 != expected.sha256 { report.changed.append(path) }
        }
        report.unexpected = present.subtracting(record.index.files.keys).sorted()
        for path in record.index.files.keys {
            guard let variant = ImageVariantSelection.variant(named: path),
                  record.index.files[String(path.dropLast(variant.fileSuffix.utf8.count))] == nil else { continue }
            report.imageVariants[variant.rawValue, default: 0] += 1
        }
        return report
    }

    /// Relative paths of every non-directory item under `root`.
    private func regularFiles(under root: String, prefix: String = "") throws -> Set<String> {
        var result = Set<String>()
        for name in try FileSystem.contents(of: root + (prefix.isEmpty ? "" : "/" + prefix)) {
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            if FileSystem.isDirectory(root + "/" + relative) {
                result.formUnion(try regularFiles(under: root, prefix: relative))
            } else {
                result.insert(relative)
            }
        }
        return result
    }
}
