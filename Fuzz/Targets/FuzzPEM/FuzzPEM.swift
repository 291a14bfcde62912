import FuzzSupport
import PkgCore

/// `PEMBlock(parsing:)` over key files. A block that parses has a printable label and
/// some bytes, and its text (as OpenSSL writes it) parses to the same block and is what
/// that block writes again.
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
    fuzzCheck(again?.text == written, "\(written.debugDescription) does not write back to itself")
    return 0
}

@main
enum FuzzPEMMain {
    static func main() { runFuzzer(fuzzPEM) }
}
