import Glibc

/// A property a fuzz target checks on every input: a failure is printed on stderr and
/// aborts, which libFuzzer reports as a crash and saves the input for.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    let report = Array("property failed at \(file):\(line): \(message())\n".utf8)
    _ = report.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}
