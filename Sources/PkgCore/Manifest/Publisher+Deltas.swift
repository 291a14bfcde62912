import FoundationEssentials

extension Publisher {
    /// Writes the tree deltas to `target` (version `version` of `name`) from the
    /// `count` newest earlier versions whose index and objects are in the output
    /// directory, as `OUT/deltas/BASE-TARGET.pkgdelta` (named by both trees' digests,
    /// so re-publishing the same trees writes nothing new), and returns their references.
    func publishDeltas(to target: PublishedFileIndex, name: String, version: String,
                       from count: Int) throws -> [DeltaReference] {
        guard count > 0 else { return [] }
        let targetDigest = TreeDigest.of(target)
        var references: [DeltaReference] = []
        for (baseVersion, base) in try earlierIndexes(of: name, before: version).prefix(count) {
            let baseDigest = TreeDigest.of(base)
            guard baseDigest != targetDigest else { continue }
            let relative = "deltas/\(baseDigest)-\(targetDigest).pkgdelta"
            let path = outputDirectory + "/" + relative
            if !FileSystem.exists(path) {
                let writer = TreeDeltaWriter()
                guard let bytes = try writer.delta(from: base, to: target, contents: { sha256 in
                    let object = outputDirectory + "/" + PublishedFileIndex.objectPath(sha256)
                    guard let bytes = try FileSystem.read(object) else { throw fileSystemError("read", object) }
                    return bytes
                }) else { continue }
                try FileSystem.makeDirectories(outputDirectory + "/deltas")
                try FileSystem.writeAtomically(bytes, to: path)
            }
            let digest = try FileHasher.hash(file: path)
            references.append(DeltaReference(from: baseVersion, base: baseDigest, target: targetDigest, url: relative,
                                             sha256: digest.sha256, size: digest.size))
        }
        return references
    }

    /// The indexes of `name`'s versions published here below `version`, newest first;
    /// versions whose objects are no longer all here are left out.
    private func earlierIndexes(of name: String, before version: String) throws -> [(String, PublishedFileIndex)] {
        let directory = outputDirectory + "/index"
        guard FileSystem.exists(directory) else { return [] }
        let prefix = name + "-", suffix = ".json"
        let versions = try FileSystem.contents(of: directory)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }
            .map { String($0.dropFirst(prefix.count).dropLast(suffix.count)) }
            .filter { ManifestEntry.isSafeComponent($0) && PackageVersion($0) < PackageVersion(version) }
            .sorted { PackageVersion($1) < PackageVersion($0) }
        return versions.compactMap { candidate in
            guard let bytes = try? FileSystem.read(directory + "/" + prefix + candidate + suffix),
                  let index = try? PublishedFileIndex.parse(bytes, label: "\(name) \(candidate)", limits: ExtractionLimits()),
                  index.files.allSatisfy({ FileSystem.exists(outputDirectory + "/" + PublishedFileIndex.objectPath($0.sha256)) })
            else { return nil }
            return (candidate, index)
        }
    }
}
