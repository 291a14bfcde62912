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

    /// Runs REDbot on `url` (HAR output); the notes on the answer to its main request.
    static func notes(for url: String) throws -> (status: Int, notes: [Note]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "from redbot.cli import main; main()", "-o", "har", url]
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
