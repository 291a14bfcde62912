import FuzzSupport
import FoundationEssentials
import PkgCore

/// A published file index (`OUT/index/NAME-VERSION.json`, fetched for delta updates)
/// as `PublishedFileIndex.parse` takes it. An accepted index lists only paths that
/// pass `EntryName.validate` as files, none twice or differing only in case, none both
/// a file and a directory, within the limits; encoded and parsed again it is equal.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFileIndex(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    let limits = ExtractionLimits(maxEntries: 64, maxTotalUncompressedSize: 1 << 30)
    guard let index = try? PublishedFileIndex.parse(bytes, label: "fuzz", limits: limits) else { return 0 }
    fuzzCheck(index.files.count <= limits.maxEntries, "accepted \(index.files.count) files")
    var folded = Set<String>()
    var total: UInt64 = 0
    for file in index.files {
        guard case .success(let name) = EntryName.validate(file.path), !name.isDirectory else {
            fuzzCheck(false, "accepted path \(file.path.debugDescription)")
            return 0
        }
        fuzzCheck(folded.insert(file.path.lowercased()).inserted, "accepted \(file.path.debugDescription) twice (case folded)")
        fuzzCheck(file.mode == 0o644 || file.mode == 0o755, "accepted mode \(file.mode)")
        fuzzCheck(file.sha256.utf8.count == 64, "accepted sha256 \(file.sha256.debugDescription)")
        total += file.size
    }
    fuzzCheck(total <= limits.maxTotalUncompressedSize, "accepted \(total) bytes")
    for file in index.files {
        var parent = Substring(file.path)
        while let slash = parent.lastIndex(of: "/") {
            parent = parent[..<slash]
            fuzzCheck(!index.files.contains { $0.path == parent }, "accepted \(parent.debugDescription) as file and directory")
        }
    }
    do {
        let encoded = Array(try JSONEncoder().encode(index))
        let again = try PublishedFileIndex.parse(encoded, label: "fuzz", limits: limits)
        fuzzCheck(again == index, "the index re-encoded parses to another index")
    } catch {
        fuzzCheck(false, "the index re-encoded is refused: \(error)")
    }
    return 0
}

@main
enum FuzzFileIndexMain {
    static func main() { runFuzzer(fuzzFileIndex) }
}
