import Foundation

/// A directory made under the system's temporary directory for one test, removed with
/// everything in it when the value is released.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// try directory.write(Array("hello".utf8), to: "hello.txt")
/// let path = directory.path("hello.txt")
/// ```
final class TemporaryDirectory: Sendable {
    /// The directory's absolute path, without a trailing slash.
    let path: String

    /// Makes a new, empty directory named `PREFIX.XXXXXX` (mode 0700).
    init(prefix: String = "pkgctl-test") throws {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw TestSupportError("mkdtemp /tmp/\(prefix).XXXXXX: \(String(cString: strerror(errno)))")
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String {
        "\(path)/\(name)"
    }

    /// Writes `bytes` to `name` inside the directory, making folders on the way; returns its path.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let file = path(name)
        let folder = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Makes the folder `name` inside the directory (and its parents); returns its path.
    @discardableResult
    func makeDirectory(_ name: String) throws -> String {
        let folder = path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}

/// A failure of the test support code itself (nginx would not start, openssl failed, …).
struct TestSupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
