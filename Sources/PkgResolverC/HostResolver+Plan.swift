import CPkgResolver
import PkgCore

/// `pkgctl_resolver_plan()`: PkgCore's ``Resolver/plan(for:)`` in the C ABI's terms.
extension HostResolver {
    /// Where `request` would be answered from and its class; offline, a miss is
    /// `PKGCTL_SOURCE_OFFLINE`, as ``start(_:)`` ends such a task with `PKGCTL_ERR_OFFLINE`.
    func plan(for request: ResourceRequest) -> pkgctl_request_plan {
        var answer = pkgctl_request_plan()
        answer.struct_size = UInt32(MemoryLayout<pkgctl_request_plan>.size)
        let source: pkgctl_source, resourceClass: ResourceClass
        do {
            let plan = try resolver.plan(for: request)
            resourceClass = plan.resourceClass
            source = plan.upstreamURL != nil ? (offline ? PKGCTL_SOURCE_OFFLINE : PKGCTL_SOURCE_ORIGIN)
                : plan.fromOverlay ? PKGCTL_SOURCE_OVERLAY : PKGCTL_SOURCE_PACKAGE
        } catch {
            // Refused before it was classified: by the same rule, on the path as given.
            resourceClass = ResourceClass.classify(accept: request.header("Accept"), path: request.rawPath)
            source = PKGCTL_SOURCE_REFUSED
        }
        answer.source = Int32(source.rawValue)
        answer.resource_class = Int32(Self.classValue(resourceClass).rawValue)
        return answer
    }

    /// The C enum of `resourceClass`.
    static func classValue(_ resourceClass: ResourceClass) -> pkgctl_resource_class {
        switch resourceClass {
        case .html: return PKGCTL_CLASS_HTML
        case .script: return PKGCTL_CLASS_SCRIPT
        case .style: return PKGCTL_CLASS_STYLE
        case .image: return PKGCTL_CLASS_IMAGE
        case .other: return PKGCTL_CLASS_OTHER
        }
    }

    /// The word of `pkgctl_resource_class_name()`: PkgCore's name of the class.
    static func className(_ value: Int32) -> StaticString {
        switch UInt32(bitPattern: value) {
        case PKGCTL_CLASS_HTML.rawValue: return "html"
        case PKGCTL_CLASS_SCRIPT.rawValue: return "script"
        case PKGCTL_CLASS_STYLE.rawValue: return "style"
        case PKGCTL_CLASS_IMAGE.rawValue: return "image"
        case PKGCTL_CLASS_OTHER.rawValue: return "other"
        default: return "unknown"
        }
    }

    /// The word of `pkgctl_source_name()`.
    static func sourceName(_ value: Int32) -> StaticString {
        switch UInt32(bitPattern: value) {
        case PKGCTL_SOURCE_PACKAGE.rawValue: return "package"
        case PKGCTL_SOURCE_OVERLAY.rawValue: return "overlay"
        case PKGCTL_SOURCE_ORIGIN.rawValue: return "origin"
        case PKGCTL_SOURCE_OFFLINE.rawValue: return "offline"
        case PKGCTL_SOURCE_REFUSED.rawValue: return "refused"
        default: return "unknown"
        }
    }
}
