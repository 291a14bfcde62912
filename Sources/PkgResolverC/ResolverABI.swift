import CPkgResolver
import Glibc
import PkgCore

// The C ABI of `pkgctl/resolver.h` (Sources/CPkgResolver/include): each function below
// implements the function of that header named without `swift_`, documented there. The
// exported C functions (Sources/CPkgResolver/abi.c) forward to these, which the library does
// not export (resolver.map); their C prototypes are in Sources/CPkgResolver/implementation.h.
// Handles are retained Swift objects passed as opaque pointers.

@_cdecl("pkgctl_swift_resolver_create")
func resolverCreate(_ options: UnsafePointer<pkgctl_resolver_options>?, _ errorBuffer: UnsafeMutablePointer<CChar>?,
                    _ errorSize: Int) -> OpaquePointer? {
    do {
        guard let options else { throw PkgError(.invalidArgument, "options is NULL") }
        let host = try HostResolver(options: options)
        return OpaquePointer(Unmanaged.passRetained(host).toOpaque())
    } catch {
        if let errorBuffer, errorSize > 0 {
            let message = Array("\(error)".utf8.prefix(errorSize - 1))
            for (offset, byte) in message.enumerated() { errorBuffer[offset] = CChar(bitPattern: byte) }
            errorBuffer[message.count] = 0
        }
        return nil
    }
}

@_cdecl("pkgctl_swift_resolver_destroy")
func resolverDestroy(_ resolver: OpaquePointer?) {
    guard let resolver else { return }
    let host = Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeRetainedValue()
    host.destroy()
}

@_cdecl("pkgctl_swift_resolver_fd")
func resolverDescriptor(_ resolver: OpaquePointer?) -> Int32 {
    guard let resolver else { return -1 }
    return Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeUnretainedValue().queue.descriptor
}

@_cdecl("pkgctl_swift_resolver_dispatch")
func resolverDispatch(_ resolver: OpaquePointer?) -> Int {
    guard let resolver else { return 0 }
    return Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeUnretainedValue().queue.dispatch()
}

@_cdecl("pkgctl_swift_task_start")
func taskStart(_ resolver: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
               _ headers: UnsafePointer<pkgctl_header>?, _ headerCount: Int,
               _ body: UnsafeRawPointer?, _ bodyLength: Int,
               _ callbacks: UnsafePointer<pkgctl_task_callbacks>?, _ user: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let resolver, let method, let url, let callbacks, headerCount == 0 || headers != nil,
          bodyLength == 0 || body != nil else { return nil }
    let host = Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeUnretainedValue()
    let fields = headerFields(headers, headerCount)
    let bytes = bodyLength == 0 ? [] : Array(UnsafeRawBufferPointer(start: body, count: bodyLength))
    let request = ResourceRequest(url: String(cString: url), method: String(cString: method), headers: fields, body: bytes)
    let task = HostTask(request: request, callbacks: callbacks.pointee, user: user, counters: host.counters)
    let handle = TaskHandle(task: task, host: host)
    host.start(handle)
    return OpaquePointer(Unmanaged.passRetained(handle).toOpaque())
}

/// The host's `count` header fields, copied; a field with a NULL name or value is skipped.
private func headerFields(_ headers: UnsafePointer<pkgctl_header>?, _ count: Int) -> [(name: String, value: String)] {
    UnsafeBufferPointer(start: headers, count: count).compactMap { field -> (name: String, value: String)? in
        guard let name = field.name, let value = field.value else { return nil }
        return (String(cString: name), String(cString: value))
    }
}

@_cdecl("pkgctl_swift_task_consumed")
func taskConsumed(_ task: OpaquePointer?, _ length: Int) {
    guard let task else { return }
    let handle = Unmanaged<TaskHandle>.fromOpaque(UnsafeRawPointer(task)).takeUnretainedValue()
    // A size_t arrives as Int: past Int.max it reads negative, and it means "everything".
    handle.host.resolver.consumed(Int(clamping: UInt(bitPattern: length)), by: handle.task)
}

@_cdecl("pkgctl_swift_task_stop")
func taskStop(_ task: OpaquePointer?) {
    guard let task else { return }
    let handle = Unmanaged<TaskHandle>.fromOpaque(UnsafeRawPointer(task)).takeRetainedValue()
    handle.host.stop(handle)
}

@_cdecl("pkgctl_swift_resolver_get_counters")
func resolverCounters(_ resolver: OpaquePointer?, _ counters: UnsafeMutablePointer<pkgctl_resolver_counters>?) {
    guard let resolver, let counters else { return }
    counters.pointee = Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeUnretainedValue().counters.snapshot
}

// Since 0.1 (PKGCTL_RESOLVER_0.1).

@_cdecl("pkgctl_swift_resolver_plan")
func resolverPlan(_ resolver: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                  _ headers: UnsafePointer<pkgctl_header>?, _ headerCount: Int,
                  _ plan: UnsafeMutablePointer<pkgctl_request_plan>?) -> Int32 {
    let fieldEnds = [\pkgctl_request_plan.source, \.resource_class].map {
        MemoryLayout<pkgctl_request_plan>.offset(of: $0)! + MemoryLayout<Int32>.size
    }
    guard let resolver, let method, let url, let plan, headerCount == 0 || headers != nil,
          SizedStruct.size(at: plan) >= fieldEnds.last! else { return Int32(PKGCTL_ERR_INVALID.rawValue) }
    let host = Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeUnretainedValue()
    let request = ResourceRequest(url: String(cString: url), method: String(cString: method),
                                  headers: headerFields(headers, headerCount))
    _ = SizedStruct.write(host.plan(for: request), to: plan, fieldEnds: fieldEnds)
    return Int32(PKGCTL_OK.rawValue)
}

@_cdecl("pkgctl_swift_resolver_report_launch_problem")
func resolverReportLaunchProblem(_ resolver: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                                 _ detail: UnsafePointer<CChar>?) -> Int32 {
    guard let resolver, let url, let detail else { return 0 }
    let host = Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeUnretainedValue()
    return host.resolver.reportLaunchProblem(url: String(cString: url), detail: String(cString: detail)) ? 1 : 0
}

@_cdecl("pkgctl_swift_source_name")
func sourceName(_ source: Int32) -> UnsafePointer<CChar> {
    UnsafeRawPointer(HostResolver.sourceName(source).utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("pkgctl_swift_resource_class_name")
func resourceClassName(_ resourceClass: Int32) -> UnsafePointer<CChar> {
    UnsafeRawPointer(HostResolver.className(resourceClass).utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("pkgctl_swift_resolver_counters_get")
func resolverCountersGet(_ resolver: OpaquePointer?, _ counters: UnsafeMutablePointer<pkgctl_counters>?) -> Int {
    guard let resolver, let counters else { return 0 }
    let host = Unmanaged<HostResolver>.fromOpaque(UnsafeRawPointer(resolver)).takeUnretainedValue()
    return SizedStruct.write(host.counters.sizedSnapshot, to: counters, fieldEnds: HostCounters.sizedFieldEnds)
}
