/// What the stopping thread needs.
final class CrossThreadStop {
    let handle: OpaquePointer
    let task: ObservedTask
    init(handle: OpaquePointer, task: ObservedTask) {
        self.handle = handle
        self.task = task
    }
}
