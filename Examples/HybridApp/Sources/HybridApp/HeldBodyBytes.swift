/// The response-body bytes the app holds itself: queued in ``PipeBodyWriter``s
/// for pipes that have no room. The resolver's window bounds them, whatever the
/// size of a body; the exit line reports their peak. Main thread only.
final class HeldBodyBytes {
    private(set) var current = 0
    private(set) var peak = 0

    func change(by delta: Int) {
        current += delta
        peak = max(peak, current)
    }
}
