import CCurl
import Glibc

/// Downloads many small files at once on one libcurl multi handle: at most
/// `parallel` transfers in flight, HTTP/2 multiplexed on one connection when
/// the origin offers it, kept-alive HTTP/1.1 connections otherwise. Each file is
/// checked by size and SHA-256 while it streams, exactly as
/// ``Downloader/download(from:to:expectedSize:expectedSHA256:compressed:resuming:progress:)``
/// does; there are no retries here: what fails is returned, for the caller to
/// fetch again one by one with the full retry rules. Blocks the calling thread.
struct ParallelDownload {
    /// One file of the batch.
    struct Item {
        var url: String
        var path: String
        var size: UInt64
        var sha256: String
    }

    let downloader: Downloader
    let parallel: Int

    /// Fetches `items`, compressed when the origin offers it; returns the ones that failed.
    /// A transfer cut short keeps what it received (decoded bytes, which the caller can
    /// continue with a Range); a file with a wrong status, size or hash is removed.
    /// `completed` is called with each item that arrived whole.
    func run(_ items: [Item], completed: (Item) -> Void) throws -> [Item] {
        try Curl.initialize()
        guard let multi = curl_multi_init() else { throw PkgError(.transferFailed, "libcurl could not create a multi handle") }
        defer { curl_multi_cleanup(multi) }
        let parallel = max(1, parallel)
        _ = pkg_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, parallel)
        _ = pkg_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))

        final class Transfer {
            let item: Item
            let easy: EasyHandle
            let sink: DownloadSink
            var failed = false
            init(item: Item, easy: EasyHandle, sink: DownloadSink) {
                self.item = item
                self.easy = easy
                self.sink = sink
            }
        }
        var waiting = items[...]
        var running: [UnsafeMutableRawPointer: Transfer] = [:]
        var failures: [Item] = []
        func fail(_ item: Item, keepingBytes: Bool = false) {
            if !keepingBytes { unlink(item.path) }
            failures.append(item)
        }
        defer { for transfer in running.values { curl_multi_remove_handle(multi, transfer.easy.raw) } }

        while !waiting.isEmpty || !running.isEmpty {
            while running.count < parallel, let item = waiting.popFirst() {
                let easy = try downloader.makeHandle(url: item.url)
                try easy.set(CURLOPT_ACCEPT_ENCODING, "")
                try easy.set(CURLOPT_PIPEWAIT, 1)
                let transfer = Transfer(item: item, easy: easy,
                                        sink: try DownloadSink(path: item.path, url: item.url, expectedSize: item.size,
                                                               progress: nil))
                easy.onBody = { [unowned transfer] bytes in
                    guard Downloader.isSuccess(transfer.easy.responseCode) else { transfer.failed = true; return false }
                    do { try transfer.sink.append(bytes) } catch { transfer.failed = true; return false }
                    return true
                }
                guard curl_multi_add_handle(multi, easy.raw) == CURLM_OK else {
                    fail(item)
                    continue
                }
                running[easy.raw] = transfer
            }
            var stillRunning: Int32 = 0
            guard curl_multi_perform(multi, &stillRunning) == CURLM_OK else {
                throw PkgError(.transferFailed, "libcurl's multi handle failed")
            }
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle,
                      let transfer = running.removeValue(forKey: raw) else { continue }
                let code = message.pointee.data.result
                curl_multi_remove_handle(multi, raw)
                downloader.count(transfer.easy)
                if code != CURLE_OK || transfer.failed || !Downloader.isSuccess(transfer.easy.responseCode) {
                    let cut = code != CURLE_OK && !transfer.failed && Downloader.isSuccess(transfer.easy.responseCode)
                    fail(transfer.item, keepingBytes: cut)
                } else if (try? transfer.sink.finish(expectedSHA256: transfer.item.sha256)) != nil {
                    completed(transfer.item)
                } else {
                    fail(transfer.item)
                }
            }
            if !running.isEmpty {
                _ = curl_multi_poll(multi, nil, 0, 1000, nil)
            }
        }
        return failures
    }
}
