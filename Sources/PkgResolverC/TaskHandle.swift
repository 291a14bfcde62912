/// What a `pkgctl_task *` is: the task and the resolver it runs in. Retained once for the
/// host from `pkgctl_task_start` until `pkgctl_task_stop` (or `pkgctl_resolver_destroy`).
final class TaskHandle: Sendable {
    let task: HostTask
    let host: HostResolver

    init(task: HostTask, host: HostResolver) {
        self.task = task
        self.host = host
    }
}
