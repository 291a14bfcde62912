import PkgCrypto
import FoundationEssentials
import PkgCore

extension PublishingFolder {
    /// Writes the tree deltas to `target` (version `version` of `name`) from the
    /// `count` newest earlier versions whose index and objects are in the folder, and from the
    /// release `previous` it replaces, as `OUT/deltas/BASE-TARGET.<sha256>.pkgdelta` (named by both trees' digests and
    /// its own bytes; one already written between the same trees is reused), and returns their references.
    func writeDeltas(to target: PublishedFileIndex, name: String, version: String, from count: Int,
                       replacing previous: ManifestEntry?) throws -> [DeltaReference] {
        try writeDeltas(treeDeltas(to: target, name: name, version: version, from: count, replacing: previous))
    }

    /// The tree deltas ``writeDeltas(to:name:version:from:replacing:)`` writes, computed and
    /// each applied to its base to prove it rebuilds `target` (``TreeDeltaCheck``), but not
    /// written; the objects of `target` must be published already. The bases are compressed on
    /// up to ``workers`` threads, each holding its base's bytes and a zstd context of its
    /// window; the list is in the order of the bases, newest first, then the replaced release
    /// when it is not among them (a hot fix or a downgrade: it sorts above `version`, yet every
    /// device it reached runs it).
    func treeDeltas(to target: PublishedFileIndex, name: String, version: String, from count: Int,
                    replacing previous: ManifestEntry?) throws -> [PendingDelta] {
        guard count > 0 else { return [] }
        let targetDigest = TreeDigest.of(target)
        var chosen = Array(try earlierIndexes(of: name, before: version).prefix(count))
        if let previous, PackageVersion(previous.version) != PackageVersion(version),
           !chosen.contains(where: { PackageVersion($0.0) == PackageVersion(previous.version) }),
           let url = previous.index?.url, let index = localIndex(url, label: "\(name) \(previous.version)") {
            chosen.append((previous.version, index))
        }
        let bases = chosen
            .map { (version: $0.0, index: $0.1, digest: TreeDigest.of($0.1)) }
            .filter { $0.digest != targetDigest }
        let pending = try WorkerThreads.map(bases.count, workers: workers) { number -> PendingDelta? in
            let base = bases[number]
            if let existing = try existingDelta(from: base.digest, to: targetDigest) {
                return PendingDelta(from: base.version, base: base.digest, target: targetDigest, url: existing, bytes: nil)
            }
            let contents = { (sha256: String) throws -> [UInt8] in
                let object = root + "/" + PublishedFileIndex.objectPath(sha256)
                guard let bytes = try FileSystem.read(object) else { throw fileSystemError("read", object) }
                return bytes
            }
            guard let bytes = try TreeDeltaWriter().delta(from: base.index, to: target, contents: contents) else { return nil }
            try TreeDeltaCheck.verify(bytes, from: base.index, to: target, label: "\(name) \(version) (delta from \(base.version))",
                                      contents: contents)
            let url = PublishedLayout.delta(base: base.digest, target: targetDigest,
                                            sha256: SHA256.hash(data: bytes).hexString)
            return PendingDelta(from: base.version, base: base.digest, target: targetDigest, url: url, bytes: bytes)
        }
        return pending.compactMap { $0 }
    }

    /// Writes the deltas of `pending` not yet in the output directory, in order; returns their references.
    func writeDeltas(_ pending: [PendingDelta]) throws -> [DeltaReference] {
        try pending.map { delta in
            if let bytes = delta.bytes { try writeContentNamed(bytes, to: delta.url) }
            let digest = try FileHasher.hash(file: root + "/" + delta.url)
            return DeltaReference(from: delta.from, base: delta.base, target: delta.target, url: delta.url,
                                  sha256: digest.sha256, size: digest.size)
        }
    }

    /// The delta already published between the trees `base` and `target`, if any.
    private func existingDelta(from base: String, to target: String) throws -> String? {
        let directory = root + "/deltas"
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
        let directory = root + "/index"
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
            localIndex("index/" + files[candidate]!.name, label: "\(name) \(candidate)").map { (candidate, $0) }
        }
    }

    /// The index at `relative` in the folder when it reads and every object it lists is here; nil otherwise.
    private func localIndex(_ relative: String, label: String) -> PublishedFileIndex? {
        guard !relative.contains(":"), let bytes = try? FileSystem.read(path(relative)),
              let index = try? PublishedFileIndex.parse(bytes, label: label, limits: ExtractionLimits()),
              index.files.allSatisfy({ FileSystem.exists(path(PublishedFileIndex.objectPath($0.sha256))) })
        else { return nil }
        return index
    }
}
