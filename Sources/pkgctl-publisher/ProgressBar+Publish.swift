import PkgCommandLine
import PkgPublishing

extension ProgressBar {
    /// Draws how far a publish has come: the bar by bytes, and the files copied.
    func handle(_ progress: PublishProgress) {
        show("publish", done: Int(clamping: progress.bytes), of: Int(clamping: progress.totalBytes)) { _ in
            "\(progress.files)/\(progress.totalFiles) files  \(progress.bytes) bytes"
        }
    }
}
