import FuzzSupport
import FoundationEssentials
import PkgCore
import PkgPublishing

/// Manifest bytes as an origin serves them (schema v1 to v3, unsigned), through
/// `Manifest.parse` and `TrustPolicy().open` (which also takes a signed envelope
/// without checking it). An accepted manifest is valid, lists a package once per runtime
/// range (each of which parses, and answers for a few host versions without trapping),
/// its names and versions are safe directory names, and it encodes to JSON that parses
/// to an equal manifest; open and parse agree on a plain manifest. Every relative URL that
/// `publish` and `prune` take as a file of the publishing folder stays inside it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    let parsed = try? Manifest.parse(bytes, source: "fuzz")
    let opened = try? TrustPolicy().open(bytes, source: "fuzz", now: Date(timeIntervalSince1970: 1_790_000_000))
    if let opened, !opened.isSigned {
        fuzzCheck(parsed == opened.manifest, "open and parse disagree on an unsigned manifest")
    }
    for manifest in [parsed, opened?.manifest].compactMap({ $0 }) { check(manifest) }
    return 0
}

private func check(_ manifest: Manifest) {
    fuzzCheck(Manifest.supportedSchemaVersions.contains(manifest.schemaVersion), "accepted schemaVersion \(manifest.schemaVersion)")
    var slots = Set<ReleaseSlot>()
    for entry in manifest.packages {
        fuzzCheck(slots.insert(ReleaseSlot(entry)).inserted, "accepted package \(entry.name.debugDescription) twice for one range")
        if let runtime = entry.runtime {
            guard let range = RuntimeRange(runtime) else { return fuzzCheck(false, "accepted runtime \(runtime.debugDescription)") }
            for host in ["0.0.0", "2.4.1", "3.0.0-beta.1", "999999999.0.0"] { _ = range.contains(RuntimeVersion(host)!) }
        }
        for text in [entry.name, entry.version] + entry.revoked {
            fuzzCheck(!text.isEmpty && text != "." && text != ".." && !text.contains("/") && !text.hasPrefix("."),
                      "accepted \(text.debugDescription) as a directory name")
        }
        fuzzCheck(entry.sha256.utf8.count == 64, "accepted sha256 \(entry.sha256.debugDescription)")
        if let fallback = entry.spaFallback, case .failure = EntryName.validate(fallback) {
            fuzzCheck(false, "accepted spaFallback \(fallback.debugDescription)")
        }
        if let rollout = entry.rollout { fuzzCheck((0...100).contains(rollout.percent), "accepted percent \(rollout.percent)") }
        let urls = [entry.url, entry.index?.url, entry.rollout?.previous?.url].compactMap { $0 } + entry.deltas.map(\.url)
        for url in urls {
            guard let path = try? ManifestReferences.localPath(url, source: "fuzz", label: entry.name) else { continue }
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            fuzzCheck(!path.hasPrefix("/") && !components.contains { $0.isEmpty || $0 == "." || $0 == ".." }
                      && !path.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "\\") },
                      "publish would take \(url.debugDescription) as a file of the publishing folder")
        }
    }
    do {
        let encoded = try manifest.encoded()
        do {
            let again = try Manifest.parse(Array(encoded), source: "fuzz re-encoded")
            fuzzCheck(again == manifest, "the manifest re-encoded parses to another manifest:\n"
                      + String(decoding: encoded, as: UTF8.self))
        } catch {
            fuzzCheck(false, "the manifest re-encoded is refused: \(error)\n" + String(decoding: encoded, as: UTF8.self))
        }
    } catch {
        fuzzCheck(false, "an accepted manifest does not encode: \(error)")
    }
}

@main
enum FuzzManifestMain {
    static func main() { runFuzzer(fuzzManifest) }
}
