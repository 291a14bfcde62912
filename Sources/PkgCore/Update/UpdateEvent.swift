/// Progress of an update, reported as it happens (e.g. to draw a progress bar).
public enum UpdateEvent: Sendable {
    case downloading(name: String, version: String, received: UInt64, total: UInt64)
    case extracting(name: String, version: String)
    case finished(UpdateReport.PackageOutcome)
}
