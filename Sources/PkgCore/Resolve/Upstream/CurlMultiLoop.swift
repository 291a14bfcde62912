import CCurl
import Dispatch
import FoundationEssentials
import Synchronization

/// One libcurl multi handle driven by its own thread with a
/// `curl_multi_poll` / `curl_multi_wakeup` loop — never Swift's cooperative
/// pool. Other threads only queue commands (add, cancel) and wake the loop;
/// every libcurl call on the multi handle and its easy handles happens on the
/// loop thread, and so do all transfer callbacks.
final class CurlMultiLoop: @unchecked Sendable {
    private enum Command {
        case add(UpstreamTransfer)
        case cancel(UpstreamTransfer)
        case resume(UpstreamTransfer)
    }

    private let multi: UnsafeMutableRawPointer
    /// Commands for the loop thread; `closed` once the thread has taken its last ones.
    private let commands = PosixMutex<(list: [Command], closed: Bool)>(([], false))
    private let stopping = Atomic<Bool>(false)
    private let exited = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// Loop-thread only: transfers added to the multi handle, by easy handle.
    private var active: [UnsafeMutableRawPointer: UpstreamTransfer] = [:]

    /// Idle origin connections kept for reuse, at most. libcurl's default grows with the
    /// transfers ever added (four per handle), so a burst of misses would otherwise leave
    /// that many sockets open for good.
    static let idleConnectionLimit = 8

    init() {
        try? Curl.initialize()  // a failure shows as failed transfers
        multi = curl_multi_init()
        pkg_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Self.idleConnectionLimit)
    }

    deinit { curl_multi_cleanup(multi) }

    private func startIfNeeded() {
        guard started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        PosixThread.detach(name: "pkgctl.upstream") { [self] in run() }
    }

    /// Starts `transfer`; its callbacks then run on the loop thread.
    func add(_ transfer: UpstreamTransfer) {
        startIfNeeded()
        let accepted = commands.withLock { commands -> Bool in
            guard !commands.closed, !stopping.load(ordering: .relaxed) else { return false }
            commands.list.append(.add(transfer))
            return true
        }
        guard accepted else { return transfer.cancelled() }
        curl_multi_wakeup(multi)
    }

    /// Removes `transfer` from the multi handle (on the loop thread); its
    /// `cancelled()` runs unless it completed first.
    func cancel(_ transfer: UpstreamTransfer) {
        commands.withLock { $0.list.append(.cancel(transfer)) }
        curl_multi_wakeup(multi)
    }

    /// Lets `transfer` go on after its sink paused it (on the loop thread).
    func resume(_ transfer: UpstreamTransfer) {
        commands.withLock { $0.list.append(.resume(transfer)) }
        curl_multi_wakeup(multi)
    }

    /// Cancels everything and ends the loop thread; waits for it (bounded, 5 s).
    func shutdown() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard started.load(ordering: .acquiring) else { return }
        curl_multi_wakeup(multi)
        _ = exited.wait(timeout: .now() + 5)
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let stop = stopping.load(ordering: .relaxed)
            let pending = commands.withLock { commands -> [Command] in
                let taken = commands.list
                commands.list.removeAll(keepingCapacity: true)
                commands.closed = stop
                return taken
            }
            for command in pending {
                switch command {
                case .add(let transfer):
                    if stopping.load(ordering: .relaxed) {
                        transfer.cancelled()
                    } else if curl_multi_add_handle(multi, transfer.easy) == CURLM_OK {
                        active[transfer.easy] = transfer
                    } else {
                        transfer.completed(CURLE_FAILED_INIT)
                    }
                case .cancel(let transfer):
                    if active.removeValue(forKey: transfer.easy) != nil {
                        curl_multi_remove_handle(multi, transfer.easy)
                        transfer.cancelled()
                    }
                case .resume(let transfer):
                    if active[transfer.easy] != nil { transfer.handle.resume() }
                }
            }
            if stop {
                for (easy, transfer) in active {
                    curl_multi_remove_handle(multi, easy)
                    transfer.cancelled()
                }
                active.removeAll()
                break
            }
            curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                if let transfer = active.removeValue(forKey: easy) {
                    curl_multi_remove_handle(multi, easy)
                    transfer.completed(code)
                }
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        exited.signal()
    }
}
