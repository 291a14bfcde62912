import Glibc

/// The app's output: reports on stdout, one log line per event on stderr
/// (prefixed `hybrid-app:`), each written whole with one `write(2)`.
enum Log {
    static func line(_ text: String) {
        write(2, "hybrid-app: \(text)\n")
    }

    static func output(_ text: String) {
        write(1, text)
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }
}
