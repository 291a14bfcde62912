import Foundation
@testable import PkgCore
@testable import PkgPublishing

/// The fall-backs an update run announced (``UpdateEvent/fellBack``), in order: pass
/// `record` as the run's progress handler.
final class FallbackLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reasons: [String] = []

    var all: [String] { lock.withLock { reasons } }

    func record(_ event: UpdateEvent) {
        if case .fellBack(_, _, let reason) = event { lock.withLock { reasons.append(reason) } }
    }
}
