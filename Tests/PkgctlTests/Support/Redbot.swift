import Foundation
import Testing

/// REDbot, "lint for HTTP" (PyPI `redbot`), run as its command line does.
enum Redbot {
    static let isInstalled = pythonModuleIsInstalled("redbot")

    /// A note REDbot made about one answer.
    struct Note: Decodable {
        let note_id: String
        let level: String
        let summary: String
    }

    /// Runs REDbot on `url` (HAR output); the notes on the answer to its main request. Its
    /// command line sends no request header of the caller's: `headers` are added to the
    /// request it checks (and the checks it derives from it) through its own `set_request`.
    static func notes(for url: String, headers: [(String, String)] = []) throws -> (status: Int, notes: [Note]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let extra = String(decoding: try JSONSerialization.data(withJSONObject: headers.map { [$0.0, $0.1] }), as: UTF8.self)
        let script = """
            import json, sys
            from redbot.resource import HttpResource
            from redbot.cli import main
            extra = [tuple(h) for h in json.loads(sys.argv.pop(1))]
            set_request = HttpResource.set_request
            def with_headers(self, iri, method="GET", headers=None, content=b""):
                set_request(self, iri, method, (headers or []) + extra, content)
            HttpResource.set_request = with_headers
            main()
            """
        process.arguments = ["python3", "-c", script, extra, "-o", "har", url]
        let output = ProcessLaunch.pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct HAR: Decodable {
            struct Log: Decodable { let entries: [Entry] }
            struct Entry: Decodable {
                struct Response: Decodable { let status: Int }
                let response: Response
                let _red_messages: [Note]
            }
            let log: Log
        }
        let entry = try #require(try JSONDecoder().decode(HAR.self, from: data).log.entries.first)
        return (entry.response.status, entry._red_messages)
    }
}
