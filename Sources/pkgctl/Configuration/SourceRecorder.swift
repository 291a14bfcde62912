import Configuration
import Synchronization

/// Remembers, for each key read, which layer answered it and which layer's value
/// was unusable: swift-configuration reports every read here (as an access reporter).
final class SourceRecorder: AccessReporter, Sendable {
    /// What a read found: the index of the first layer with a value, or of one that failed.
    enum Finding: Sendable {
        case value(layer: Int)
        case failure(layer: Int, error: String)

        /// The layer that answered.
        var layer: Int {
            switch self {
            case .value(let layer), .failure(let layer, _): layer
            }
        }
    }

    private let findings = Mutex<[String: Finding]>([:])

    func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        var finding: Finding?
        for (layer, result) in event.providerResults.enumerated() {
            switch result.result {
            case .success(let lookup) where lookup.value != nil:
                finding = event.conversionError.map { .failure(layer: layer, error: "\($0)") } ?? .value(layer: layer)
            case .success:
                continue
            case .failure(let error):
                finding = .failure(layer: layer, error: "\(error)")
            }
            break
        }
        if finding == nil, let error = event.conversionError { finding = .failure(layer: 0, error: "\(error)") }
        guard let finding else { return }
        findings.withLock { $0[key] = finding }
    }

    /// What the last read of `key` found; nil when no layer has it.
    func finding(for key: String) -> Finding? {
        findings.withLock { $0[key] }
    }
}
