import FuzzSupport
import PkgCore

/// Zip entry names (and index paths, spaFallback) as `EntryName.validate` takes them
/// from a hostile zip's central directory. An accepted name stays under the
/// extraction root: relative, no `.`/`..`/empty component, no backslash, no control
/// character, within the length limits, and its path is the raw name less a trailing `/`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntryName(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let raw = FuzzInput(data, size).text
    guard case .success(let name) = EntryName.validate(raw) else { return 0 }
    let path = name.path
    fuzzCheck(!path.isEmpty, "accepted an empty path for \(raw.debugDescription)")
    fuzzCheck(path.utf8.first != UInt8(ascii: "/"), "accepted an absolute path \(path.debugDescription)")
    fuzzCheck(name.isDirectory == (raw.utf8.last == UInt8(ascii: "/")) && path + (name.isDirectory ? "/" : "") == raw,
              "path \(path.debugDescription) is not \(raw.debugDescription) less its trailing /")
    fuzzCheck(path.utf8.count <= EntryName.maxPathBytes, "accepted a path of \(path.utf8.count) bytes")
    fuzzCheck(!path.unicodeScalars.contains { $0.value < 0x20 || $0 == "\\" || $0.value == 0x7f },
              "accepted a control character or backslash in \(path.debugDescription)")
    var depth = 0
    for component in pathSegments(path) {
        fuzzCheck(component != "" && component != "." && component != "..",
                  "accepted component \(component.debugDescription) in \(path.debugDescription)")
        fuzzCheck(component.utf8.count <= EntryName.maxComponentBytes, "accepted a component of \(component.utf8.count) bytes")
        depth += 1
    }
    fuzzCheck(depth >= 1, "no component in \(path.debugDescription)")
    return 0
}

@main
enum FuzzEntryNameMain {
    static func main() { runFuzzer(fuzzEntryName) }
}
