import Configuration
import PkgCore

/// Remembers, for each key read, which layer answered it and which layer's value
/// was unusable: swift-configuration reports every read here (as an access reporter).
final class SourceRecorder: AccessReporter, Sendable {
    /// What a read found: the index of the first layer with a value, or of one whose
    /// value could not be read as the type asked for.
    enum Finding: Sendable {
        case value(layer: Int)
        case failure(layer: Int)

        /// The layer that answered.
        var layer: Int {
            switch self {
            case .value(let layer), .failure(let layer): layer
            }
        }
    }

    private let findings = PosixMutex<[String: Finding]>([:])

    func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        var finding: Finding?
        for (layer, result) in event.providerResults.enumerated() {
            switch result.result {
            case .success(let lookup) where lookup.value != nil:
                finding = event.conversionError == nil ? .value(layer: layer) : .failure(layer: layer)
            case .success:
                continue
            case .failure:
                finding = .failure(layer: layer)
            }
            break
        }
        if finding == nil, event.conversionError != nil { finding = .failure(layer: 0) }
        guard let finding else { return }
        findings.withLock { $0[key] = finding }
    }

    /// What the last read of `key` found; nil when no layer has it.
    func finding(for key: String) -> Finding? {
        findings.withLock { $0[key] }
    }
}
