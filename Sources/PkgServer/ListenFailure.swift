import Glibc
import NIOCore

/// Why a server could not listen, in the user's words. NIO's `IOError` names its own call
/// (`bind(descriptor:ptr:bytes:)`) and an errno; a user needs the reason and what to do.
public enum ListenFailure {
    /// The reason `error`, thrown while binding, gives, with what to do about it when that is known.
    public static func reason(_ error: any Error) -> String {
        guard let code = (error as? IOError)?.errnoCode else { return "\(error)" }
        switch code {
        case EADDRINUSE: return "another program listens there; stop it, or choose another port (--port)"
        case EACCES: return "ports below 1024 need root or CAP_NET_BIND_SERVICE; choose a port from 1024 up"
        case EADDRNOTAVAIL: return "no interface of this machine has that address (--bind)"
        default: return String(cString: strerror(code))
        }
    }
}
