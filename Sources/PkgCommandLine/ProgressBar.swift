import FoundationEssentials
import Glibc
import PkgCore

/// A one-line progress bar on stderr, redrawn in place; only used on a terminal.
package final class ProgressBar: Sendable {
    /// When the bar was last drawn; held while drawing, so lines never interleave.
    private let lastDraw = PosixMutex(Date.distantPast)

    package init() {}

    /// Draws how far a download has come.
    package func handle(_ event: UpdateEvent) {
        switch event {
        case .downloading(let name, let version, let received, let total):
            show("\(name) \(version)", done: Int(clamping: received), of: Int(clamping: total)) { "\($0)%" }
        case .extracting(let name, let version):
            lastDraw.withLock { _ in draw("\(name) \(version) extracting…") }
        case .finished, .fellBack, .prefetched:
            clear()
        }
    }

    /// Draws how far a prefetch has come.
    package func handle(_ progress: PrefetchProgress) {
        show("prefetch", done: progress.done, of: progress.total) { _ in "\(progress.done)/\(progress.total)  \(progress.bytes) bytes" }
    }

    /// Draws `label [####----] detail(percent)`, at most every 0.1 s, and always once `done`
    /// reaches `total`; an empty bar at 0 % while `total` is 0 (not known yet).
    package func show(_ label: String, done: Int, of total: Int, detail: (Int) -> String) {
        lastDraw.withLock { lastDraw in
            guard done == total || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = Date()
            let width = 30
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let percent = Int(fraction * 100)
            draw("\(label) [\(bar)] \(detail(percent))")
        }
    }

    /// Clears the bar's line.
    package func clear() {
        lastDraw.withLock { _ in draw("") }
    }

    private func draw(_ text: String) {
        Output.write(Array("\r\u{1B}[2K\(text)".utf8), to: STDERR_FILENO)
    }
}
