import Foundation
import NIOCore
import Testing
@testable import PkgServer

/// A failed `sendfile` of a package file is a local read failure unless the client went away.
@Suite struct LocalReadFailureTests {
    @Test(arguments: [EPIPE, ECONNRESET, ENOTCONN, ESHUTDOWN, ETIMEDOUT])
    func aWriteCutByTheClientIsNoLocalFailure(code: Int32) {
        #expect(LocalReadFailure(writing: "/p/a.js", failedWith: IOError(errnoCode: code, reason: "sendfile")) == nil)
    }

    @Test func aClosedChannelIsNoLocalFailure() {
        for error in [ChannelError.ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed] {
            #expect(LocalReadFailure(writing: "/p/a.js", failedWith: error) == nil, "\(error)")
        }
    }

    @Test func aReadErrorNamesThePathAndTheErrno() throws {
        let failure = try #require(LocalReadFailure(writing: "/store/packages/demo/1.0.0/big.bin",
                                                    failedWith: IOError(errnoCode: EIO, reason: "sendfile")))
        #expect(failure.errno == EIO)
        #expect(failure.description == "read /store/packages/demo/1.0.0/big.bin: Input/output error (errno \(EIO))")
        #expect(LocalReadFailure(path: "/p/a.js", errno: nil).description == "read /p/a.js: ended early")
    }

    @Test func anotherFailureOfTheWriteKeepsItsOwnText() throws {
        let failure = try #require(LocalReadFailure(writing: "/p/a.js", failedWith: EventLoopError.shutdown))
        #expect(failure.errno == nil)
        #expect(failure.description == "send /p/a.js: \(EventLoopError.shutdown)")
    }
}
