import FoundationEssentials

extension PackageStore {
    /// This device's id for staged rollouts, kept in `ROOT/state/device-id`:
    /// a random UUID made on first use, so a device keeps its place in every
    /// rollout across runs. Expects the store lock when it may create one.
    public func deviceID() throws -> String {
        if let bytes = try FileSystem.read(layout.deviceID) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
            if !text.isEmpty { return text }
        }
        let id = UUID().uuidString.lowercased()
        try layout.prepare()
        try FileSystem.writeAtomically(Array((id + "\n").utf8), to: layout.deviceID)
        return id
    }
}
