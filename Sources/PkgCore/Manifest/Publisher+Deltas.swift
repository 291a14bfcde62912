import Crypto
import FoundationEssentials

extension Publisher {
    /// Writes the tree deltas to `target` (version `version` of `name`) from the
    /// `count` newest earlier versions whose index and objects are in the output
    /// directory, as `OUT/deltas/BASE-TARGET.<sha256>.pkgdelta` (named by both trees' digests and
    /// its own bytes; one already written between the same trees is reused), and returns their references.
    func publishDeltas(to target: PublishedFileIndex, name: String, version: String,
                       from count: Int) throws -> [DeltaReference] {
        guard count > 0 else { return [] }
        let targetDigest = TreeDigest.of(target)
        var references: [DeltaReference] = []
        for (baseVersion, base) in try earlierIndexes(of: name, before: version).prefix(count) {
            let baseDigest = TreeDigest.of(base)
            guard baseDigest != targetDigest else { continue }
            let relative: String
            if let existing = try publishedDelta(from: baseDigest, to: targetDigest) {
                relative = existing
            } else {
                let writer = TreeDeltaWriter()
                guard let bytes = try writer.delta(from: base, to: target, contents: { sha256 in
                    let object = outputDirectory + "/" + PublishedFileIndex.objectPath(sha256)
                    guard let bytes = try FileSystem.read(object) else { throw fileSystemError("read", object) }
                    return bytes
                }) else { continue }
                relative = PublishedLayout.delta(base: baseDigest, target: targetDigest,
                                                 sha256: SHA256.hash(data: bytes).hexString)
                try writeContentNamed(bytes, to: relative)
            }
            let path = outputDirectory + "/" + relative
            let digest = try FileHasher.hash(file: path)
            references.append(DeltaReference(from: baseVersion, base: baseDigest, target: targetDigest, url: relative,
                                             sha256: digest.sha256, size: digest.size))
        }
        return references
    }

    /// The delta already published between the trees `base` and `target`, if any.
    private func publishedDelta(from base: String, to target: String) throws -> String? {
        let directory = outputDirectory + "/deltas"
        guard FileSystem.exists(directory) else { return nil }
        let prefix = "\(base)-\(target)."
        return try FileSystem.contents(of: directory).sorted()
            .first { $0.hasPrefix(prefix) && PublishedLayout.namedDigest(of: "deltas/" + $0) != nil }
            .map { "deltas/" + $0 }
    }

    /// The indexes of `name`'s versions published here below `version`, newest first;
    /// versions whose objects are no longer all here are left out. Index files are
    /// `NAME-VERSION.<sha256>.json` (or `NAME-VERSION.json`, as earlier pkgctl wrote them);
    /// of several for one version (a release replaced with force), the newest file counts.
    private func earlierIndexes(of name: String, before version: String) throws -> [(String, PublishedFileIndex)] {
        let directory = outputDirectory + "/index"
        guard FileSystem.exists(directory) else { return [] }
        let prefix = name + "-", suffix = ".json"
        var files: [String: (name: String, stamp: Int64)] = [:]
        for file in try FileSystem.contents(of: directory) where file.hasPrefix(prefix) && file.hasSuffix(suffix) {
            var stem = file.dropFirst(prefix.count).dropLast(suffix.count)
            if PublishedLayout.namedDigest(of: "index/" + file) != nil { stem = stem.dropLast(65) }
            let candidate = String(stem)
            guard ManifestEntry.isSafeComponent(candidate), PackageVersion(candidate) < PackageVersion(version) else { continue }
            let stamp = FileSystem.modificationStamp(directory + "/" + file)
            if files[candidate].map({ $0.stamp < stamp }) ?? true { files[candidate] = (file, stamp) }
        }
        let versions = files.keys.sorted { PackageVersion($1) < PackageVersion($0) }
        return versions.compactMap { candidate in
            guard let bytes = try? FileSystem.read(directory + "/" + files[candidate]!.name),
                  let index = try? PublishedFileIndex.parse(bytes, label: "\(name) \(candidate)", limits: ExtractionLimits()),
                  index.files.allSatisfy({ FileSystem.exists(outputDirectory + "/" + PublishedFileIndex.objectPath($0.sha256)) })
            else { return nil }
            return (candidate, index)
        }
    }
}
