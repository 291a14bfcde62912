import FuzzSupport
import PkgCore

/// A request's raw path as `RequestPath.decode` takes it (the part of the target
/// before `?`). A decoded path starts with `/` and holds no NUL or other control
/// byte, no backslash and no `.` or `..` segment; it is valid UTF-8 by type.
/// Encoding it with `RequestPath.encode` and decoding again gives it back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let raw = FuzzInput(data, size).text
    guard let decoded = try? RequestPath.decode(Substring(raw)) else { return 0 }
    checkSafe(decoded, raw: raw)
    let encoded = RequestPath.encode(decoded)
    fuzzCheck(encoded.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }, "encode left a byte to escape in \(encoded.debugDescription)")
    do {
        let again = try RequestPath.decode(Substring(encoded))
        fuzzCheck(again == decoded, "\(decoded.debugDescription) encodes to \(encoded.debugDescription), "
                  + "which decodes to \(again.debugDescription)")
    } catch {
        fuzzCheck(false, "\(decoded.debugDescription) encodes to \(encoded.debugDescription), which is refused: \(error)")
    }
    // A path that needed no decoding is returned as it came.
    if !raw.utf8.contains(UInt8(ascii: "%")) {
        fuzzCheck(decoded == raw, "\(raw.debugDescription) has no escape but decodes to \(decoded.debugDescription)")
    }
    return 0
}

private func checkSafe(_ decoded: String, raw: String) {
    fuzzCheck(decoded.utf8.first == UInt8(ascii: "/"), "\(raw.debugDescription) decodes to \(decoded.debugDescription), not starting with /")
    fuzzCheck(!decoded.utf8.contains { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "\\") },
              "\(raw.debugDescription) decodes to \(decoded.debugDescription), with a control byte or backslash")
    for segment in pathSegments(decoded) {
        fuzzCheck(segment != "." && segment != "..", "\(raw.debugDescription) decodes to \(decoded.debugDescription), with a dot segment")
    }
}

@main
enum FuzzRequestPathMain {
    static func main() { runFuzzer(fuzzRequestPath) }
}
