import FuzzSupport
import PkgCore

/// `PEMBlock(parsing:)` over key files. A block that parses has a printable label and
/// some bytes, and its text parses to the same block and has OpenSSL's shape: the BEGIN
/// line, base64 lines of 64 characters (the last one at most 64), the END line, no newline after.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPEM(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = FuzzInput(data, size).text
    guard let block = PEMBlock(parsing: text) else { return 0 }
    fuzzCheck(!block.der.isEmpty && !block.label.isEmpty && block.label.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F },
              "\(text.debugDescription) parses to label \(block.label.debugDescription) and \(block.der.count) bytes")
    let written = block.text
    let again = PEMBlock(parsing: written)
    fuzzCheck(again == block, "\(text.debugDescription) parses, but its text \(written.debugDescription) parses to "
              + "\(again.map { "\($0.label.debugDescription), \($0.der.count) bytes" } ?? "nothing")")
    let lines = written.split(separator: "\n", omittingEmptySubsequences: false)
    fuzzCheck(lines.count >= 3 && lines.first == "-----BEGIN \(block.label)-----" && lines.last == "-----END \(block.label)-----"
              && lines.dropFirst().dropLast().dropLast().allSatisfy { $0.utf8.count == 64 }
              && (1...64).contains(lines[lines.count - 2].utf8.count),
              "\(written.debugDescription) is not in OpenSSL's shape")
    return 0
}

@main
enum FuzzPEMMain {
    static func main() { runFuzzer(fuzzPEM) }
}
