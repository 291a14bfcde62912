/// A zip entry name checked to stay inside the extraction directory.
///
/// Accepts only relative, `/`-separated names whose every component is a
/// plain name: no leading `/`, no `..`, `.` or empty component, no backslash,
/// no drive letter, no control character. A trailing `/` marks a directory.
package struct EntryName: Hashable, Sendable {
    /// The relative path without a trailing `/`, e.g. "css/site.css".
    package let path: String
    /// Whether the name ended in `/`.
    package let isDirectory: Bool

    /// Longest component most Linux filesystems accept, in bytes.
    package static let maxComponentBytes = 255
    /// Longest relative path accepted, in bytes (PATH_MAX less room for the target).
    package static let maxPathBytes = 3072

    /// Validates `raw`; returns the reason it is refused when it is unsafe.
    package static func validate(_ raw: String) -> Result<EntryName, Refusal> {
        if raw.isEmpty { return .failure(.init("empty name")) }
        if raw.utf8.first == UInt8(ascii: "/") { return .failure(.init("absolute path")) }
        for scalar in raw.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || value == 0x7f || (0x80...0x9f).contains(value) {
                return .failure(.init("control character in name"))
            }
            if scalar == "\\" { return .failure(.init("backslash in name")) }
        }
        let bytes = Array(raw.utf8)
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"), isASCIILetter(bytes[0]) {
            return .failure(.init("drive letter in name"))
        }
        // Bytes, not Characters: "/" followed by a combining mark is one Character, so a
        // Character split would read "../\u{301}x" as one harmless component.
        var body = Substring(raw).utf8
        let isDirectory = body.last == UInt8(ascii: "/")
        if isDirectory { body = body.dropLast() }
        if body.count > maxPathBytes { return .failure(.init("name too long")) }
        for component in body.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.isEmpty { return .failure(.init("empty path component")) }
            if component.elementsEqual(".".utf8) { return .failure(.init("'.' path component")) }
            if component.elementsEqual("..".utf8) { return .failure(.init("path leaves the bundle")) }
            if component.count > maxComponentBytes { return .failure(.init("path component too long")) }
        }
        return .success(EntryName(path: String(Substring(body)), isDirectory: isDirectory))
    }

    /// Why a name was refused, e.g. "path leaves the bundle".
    package struct Refusal: Error, Sendable {
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
