/// Which object keys a JSON document may have, for ``StrictJSON``: a signed
/// document is read only when every key it holds is one the reader knows, so
/// no field can carry a meaning one tool sees and another ignores.
indirect enum JSONKeySchema: Sendable {
    /// An object with only these keys (each optional), their values as given.
    case object([String: JSONKeySchema])
    /// An array whose elements are as given.
    case array(JSONKeySchema)
    /// Any value; objects inside it are still checked for duplicate keys.
    case value

    // Computed, not stored: a global holding an indirect enum's boxes for the process's
    // life is what LeakSanitizer reports as leaked (it cannot follow the reference), and a
    // schema costs a few small allocations per signed document.

    /// A signed manifest's payload (``Manifest`` and what it holds).
    static var manifest: JSONKeySchema {
        let index = JSONKeySchema.object(["url": .value, "sha256": .value, "size": .value])
        let delta = JSONKeySchema.object([
            "from": .value, "base": .value, "target": .value, "url": .value, "sha256": .value, "size": .value,
        ])
        let header = JSONKeySchema.object(["files": .value, "name": .value, "value": .value])
        let release = JSONKeySchema.object([
            "version": .value, "url": .value, "sha256": .value, "size": .value, "routes": .value, "spaFallback": .value,
            "index": index, "deltas": .array(delta), "immutable": .value, "headers": .array(header), "critical": .value,
            "runtime": .value, "prefetch": .value,
        ])
        let rollout = JSONKeySchema.object(["percent": .value, "salt": .value, "previous": release, "devices": .value])
        let entry = JSONKeySchema.object([
            "name": .value, "version": .value, "url": .value, "sha256": .value, "size": .value, "routes": .value,
            "rollout": rollout, "revoked": .value, "index": index, "spaFallback": .value, "deltas": .array(delta),
            "immutable": .value, "headers": .array(header), "critical": .value, "runtime": .value,
            "prefetch": .value,
        ])
        return .object(["schemaVersion": .value, "packages": .array(entry), "sequence": .value, "expires": .value])
    }

    /// A timestamp's payload (``Timestamp``).
    static var timestamp: JSONKeySchema {
        .object(["manifestSHA256": .value, "manifestSequence": .value, "expires": .value])
    }

    /// A root's payload (``RootDocument``); its `keys` map ids to base64 text.
    static var root: JSONKeySchema {
        let role = JSONKeySchema.object(["keyids": .value, "threshold": .value])
        return .object([
            "version": .value, "expires": .value, "keys": .value,
            "roles": .object(["root": role, "content": role, "timestamp": role]),
        ])
    }

    /// A DSSE envelope (``SignedEnvelope``).
    static var envelope: JSONKeySchema {
        .object([
            "payloadType": .value, "payload": .value,
            "signatures": .array(.object(["keyid": .value, "sig": .value])),
        ])
    }
}
