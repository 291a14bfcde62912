import Foundation
import Testing
@testable import PkgCore

/// Where the resolver's serving signals are written: into the store they were counted for, and
/// nowhere once that store is gone (its flush runs a while after the count, on another thread).
@Suite struct ServingSignalsStoreTests {
    @Test func countsAddUpInTheStoresStateFolder() throws {
        let directory = try TemporaryDirectory()
        let layout = StoreLayout(root: directory.path("store"))
        try FileSystem.makeDirectories(layout.state)
        try ServingSignals.add(ServingSignals(notFound: 2, originFallbacks: 1), name: "app", version: "1.0.0", layout: layout)
        try ServingSignals.add(ServingSignals(notFound: 1, originFallbacks: 0), name: "app", version: "1.0.0", layout: layout)
        let totals = ServingSignals.all(layout).map { "\($0.name) \($0.version) \($0.signals.notFound) \($0.signals.originFallbacks)" }
        #expect(totals == ["app 1.0.0 3 1"])
    }

    @Test func aFlushAfterItsStoreWasRemovedMakesNoFolder() throws {
        let directory = try TemporaryDirectory()
        let root = directory.path("store")
        let layout = StoreLayout(root: root)
        try FileSystem.makeDirectories(layout.state)
        try FileManager.default.removeItem(atPath: root)
        let error = #expect(throws: PkgError.self) {
            try ServingSignals.add(ServingSignals(notFound: 1, originFallbacks: 0), name: "app", version: "1.0.0", layout: layout)
        }
        #expect(error?.code == .fileSystem && error?.errno == ENOENT, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: root), "the removed store was made again")
    }
}
