extension PackageStore {
    /// The newest signed manifest this store accepted; nil when it never accepted one.
    public func acceptedManifest() throws -> AcceptedManifest? {
        try TrustState.load(layout).map { AcceptedManifest(sequence: $0.sequence, expires: $0.expires) }
    }
}
