import CCurl

/// Owns one libcurl easy handle (`CURL *`), its header list and error buffer, and frees
/// them in `deinit`: the one place pkgctl creates, configures and frees easy handles,
/// for the updater's blocking transfers (``perform()``) and the resolver's transfers
/// on its multi handle alike.
///
/// libcurl's C callbacks are non-capturing closures that recover the handle from their
/// context pointer through `Unmanaged` and call the Swift closures stored here. A handle
/// is used by one thread at a time; ``perform()`` blocks that thread.
final class EasyHandle {
    /// Called with each chunk of the response body; return false to abort the transfer
    /// (``perform()`` then returns `CURLE_WRITE_ERROR`).
    var onBody: (UnsafeRawBufferPointer) -> Bool = { _ in true }
    /// Asked before each chunk of the response body: false pauses the transfer
    /// (`CURL_WRITEFUNC_PAUSE`) until ``resume()``, which hands the same chunk to
    /// `onBody` again. The flow-control gate of a consumer that reads slowly.
    var admitsBody: () -> Bool = { true }
    /// Called with each response header line as libcurl delivers it (status lines
    /// included, CRLF kept); return false to abort the transfer.
    var onHeader: (String) -> Bool = { _ in true }

    /// The `CURL *`, for adding the handle to a multi handle.
    let raw: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Creates a handle with no options set but its callbacks, `NOSIGNAL` and error buffer.
    init() throws {
        try Curl.initialize()
        guard let raw = curl_easy_init() else {
            throw PkgError(.transferFailed, "libcurl could not create a transfer handle")
        }
        self.raw = raw
        let size = Int(CURL_ERROR_SIZE)
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)

        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        try check(pkg_curl_easy_setopt_data_callback(raw, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
            guard let context else { return 0 }
            let handle = Unmanaged<EasyHandle>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            guard handle.admitsBody() else { return pkg_curl_writefunc_pause }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: buffer == nil ? 0 : length)
            return handle.onBody(bytes) ? length : 0
        }, CURLOPT_WRITEFUNCTION)
        try set(CURLOPT_WRITEDATA, pointer: context)
        try check(pkg_curl_easy_setopt_data_callback(raw, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
            guard let context else { return 0 }
            let handle = Unmanaged<EasyHandle>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            guard let buffer else { return length }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
            return handle.onHeader(String(decoding: bytes, as: UTF8.self)) ? length : 0
        }, CURLOPT_HEADERFUNCTION)
        try set(CURLOPT_HEADERDATA, pointer: context)
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Sets a `long` option.
    func set(_ option: CURLoption, _ value: Int) throws {
        try check(pkg_curl_easy_setopt_long(raw, option, value), option)
    }

    /// Sets a string option; libcurl copies the string.
    func set(_ option: CURLoption, _ value: String) throws {
        try check(value.withCString { pkg_curl_easy_setopt_ptr(raw, option, $0) }, option)
    }

    /// Sets a `curl_off_t` option (the `*_LARGE` ones).
    func set(_ option: CURLoption, offset value: Int64) throws {
        try check(pkg_curl_easy_setopt_off(raw, option, curl_off_t(value)), option)
    }

    /// Sends `body` as the request body (libcurl copies it).
    func setRequestBody(_ body: [UInt8]) throws {
        try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
        try check(body.withUnsafeBytes {
            pkg_curl_easy_setopt_ptr(raw, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
        }, CURLOPT_COPYPOSTFIELDS)
    }

    /// Clears a pointer or string option.
    func clear(_ option: CURLoption) throws {
        try check(pkg_curl_easy_setopt_ptr(raw, option, nil), option)
    }

    /// Sets a pointer option whose target outlives the handle.
    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws {
        try check(pkg_curl_easy_setopt_ptr(raw, option, pointer), option)
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutablePointer<CChar>) throws {
        try check(pkg_curl_easy_setopt_ptr(raw, option, pointer), option)
    }

    /// Replaces the extra request headers ("Name: value" lines).
    func setHeaders(_ lines: [String]) throws {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw PkgError(.transferFailed, "libcurl could not allocate a header list")
            }
            list = appended
        }
        do {
            try check(pkg_curl_easy_setopt_ptr(raw, CURLOPT_HTTPHEADER, list), CURLOPT_HTTPHEADER)
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        curl_slist_free_all(headerList)
        headerList = list
    }

    /// Runs the transfer on the calling thread until it ends; returns libcurl's result.
    /// The error buffer is cleared first, so ``errorDetail`` belongs to this transfer.
    func perform() -> CURLcode {
        errorBuffer[0] = 0
        return curl_easy_perform(raw)
    }

    /// Lets a transfer paused by ``admitsBody`` go on; call it on the thread that drives the handle.
    func resume() {
        curl_easy_pause(raw, pkg_curlpause_cont)
    }

    /// The last response's status code: 0 for file:// or when no response arrived.
    var responseCode: Int {
        var code = 0
        _ = pkg_curl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Bytes the last ``perform()`` received: every response's headers (redirects included)
    /// and the body as it came, before any content decoding.
    var receivedBytes: UInt64 {
        var body: curl_off_t = 0, headers = 0
        _ = pkg_curl_easy_getinfo_off(raw, CURLINFO_SIZE_DOWNLOAD_T, &body)
        _ = pkg_curl_easy_getinfo_long(raw, CURLINFO_HEADER_SIZE, &headers)
        return UInt64(max(0, body)) + UInt64(max(0, headers))
    }

    /// libcurl's detailed message for the last failed ``perform()``, or "".
    var errorDetail: String { String(cString: errorBuffer) }

    private func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code == CURLE_OK else {
            throw PkgError(.transferFailed, "libcurl option \(option.rawValue): \(Curl.text(of: code))")
        }
    }
}
