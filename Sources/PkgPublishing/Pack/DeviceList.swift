import PkgCore

/// A publisher's file of device ids to pin to a release (`pkgctl rollout --devices FILE`):
/// one id a line, as `pkgctl update --print-device-id` prints it; blank lines and lines
/// starting with `#` are skipped.
public enum DeviceList {
    /// The ids in the file at `path`; throws naming the file and line of an id that is not
    /// 1 to 256 printable ASCII characters without spaces, or a file that cannot be read.
    public static func read(_ path: String) throws -> [String] {
        guard let bytes = try FileSystem.read(path) else {
            throw PkgError(.invalidArgument, "\(path.escapedForMessage): no such file")
        }
        var ids: [String] = []
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let id = String(decoding: line, as: UTF8.self).trimmingWhitespace()
            if id.isEmpty || id.hasPrefix("#") { continue }
            guard id.utf8.count <= 256, id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
                throw PkgError(.invalidArgument, "\(path.escapedForMessage) line \(number + 1): a device id is "
                               + "1 to 256 printable characters without spaces")
            }
            ids.append(id)
        }
        return ids
    }
}
