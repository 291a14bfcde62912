import Foundation
import Testing

/// The README a newcomer reads in ten minutes, and the pages of docs/ it points to: small
/// enough, every relative link and anchor leading somewhere, and a quick start to copy
/// (scripts/quickstart runs its blocks; this only checks they are there).
@Suite struct DocumentationLinkTests {
    static let repository = BundleFixtures.repository

    /// The Markdown files whose links must resolve, relative to the repository.
    static var checkedFiles: [String] {
        var files = ["README.md", "FUZZING.md", "BENCHMARKS.md"]
        let manager = FileManager.default
        let docs = (try? manager.contentsOfDirectory(atPath: repository + "/docs")) ?? []
        files += docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        let examples = (try? manager.contentsOfDirectory(atPath: repository + "/Examples")) ?? []
        for example in examples.sorted() where manager.fileExists(atPath: repository + "/Examples/\(example)/README.md") {
            files.append("Examples/\(example)/README.md")
        }
        return files
    }

    @Test func theReadmeIsUnder20KB() throws {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Self.repository + "/README.md")[.size] as? Int)
        #expect(size < 20_480, "README.md is \(size) bytes; move reference material to docs/")
    }

    @Test func theReadmeLinksEveryReferencePage() throws {
        let readme = try MarkdownDocument(file: "README.md")
        let linked = Set(readme.links.map { $0.target.split(separator: "#", omittingEmptySubsequences: false)[0] })
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.repository + "/docs").filter { $0.hasSuffix(".md") }
        for page in pages.sorted() {
            if !linked.contains(Substring("docs/" + page)) { Issue.record("README.md does not link docs/\(page)") }
        }
    }

    @Test func theQuickStartHasAtLeastFiveShellBlocks() throws {
        let readme = try MarkdownDocument(file: "README.md")
        let blocks = readme.shellBlocks(inSection: "Quick start")
        #expect(blocks.count >= 5, "README.md's Quick start has \(blocks.count) ```sh blocks")
    }

    @Test(arguments: checkedFiles)
    func everyRelativeLinkAndAnchorResolves(file: String) throws {
        let markdown = try MarkdownDocument(file: file)
        let folder = (file as NSString).deletingLastPathComponent
        for link in markdown.links {
            let target = link.target
            if target.contains("://") || target.hasPrefix("mailto:") { continue }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(parts[0])
            let anchor = parts.count > 1 ? String(parts[1]) : nil
            var destination = file
            if !path.isEmpty {
                destination = Self.normalize(folder.isEmpty ? path : folder + "/" + path)
                let absolute = Self.repository + "/" + destination
                guard FileManager.default.fileExists(atPath: absolute) else {
                    Issue.record("\(file):\(link.line): link to \(target): \(destination) does not exist")
                    continue
                }
            }
            guard let anchor else { continue }
            guard destination.hasSuffix(".md") else {
                Issue.record("\(file):\(link.line): anchor in a link to a file that is not Markdown: \(target)")
                continue
            }
            let headings = try MarkdownDocument(file: destination).headingSlugs
            if !headings.contains(anchor) {
                Issue.record("\(file):\(link.line): link to \(target): no heading of \(destination) has the anchor #\(anchor)")
            }
        }
    }

    @Test func slugsAreMadeTheWayGitHubMakesThem() {
        let markdown = MarkdownDocument(text: """
            # pkgctl
            ## Releases for the host app they fit (`--runtime`)
            ## Error codes (`--json`)
            ### Metrics (`pkgctl serve --metrics-port`)
            ## Embedding from C, Python and Rust (`pkgctl/resolver.h`)
            ```sh
            # not a heading
            ```
            ## Notes
            ## Notes
            ## Notes
            """)
        #expect(markdown.headingSlugs == [
            "pkgctl", "releases-for-the-host-app-they-fit---runtime", "error-codes---json",
            "metrics-pkgctl-serve---metrics-port", "embedding-from-c-python-and-rust-pkgctlresolverh",
            "notes", "notes-1", "notes-2",
        ])
    }

    /// `a/./b/../c` as `a/c`.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", !parts.isEmpty, parts.last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }
}

/// Just enough of a Markdown reader for links, headings and fenced blocks.
struct MarkdownDocument {
    struct Link {
        var target: String
        var line: Int
    }

    /// Each line with whether it is inside a fenced code block (fences count as inside).
    let lines: [(text: String, fenced: Bool)]

    init(file: String) throws {
        self.init(text: try String(contentsOfFile: DocumentationLinkTests.repository + "/" + file, encoding: .utf8))
    }

    init(text: String) {
        var fence: String?
        var lines: [(String, Bool)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                lines.append((line, true))
                if trimmed.hasPrefix(open), trimmed.allSatisfy({ $0 == open.first }) { fence = nil }
            } else if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix { $0 == trimmed.first })
                lines.append((line, true))
            } else {
                lines.append((line, false))
            }
        }
        self.lines = lines
    }

    /// Inline links `[text](target)` outside code blocks and code spans.
    var links: [Link] {
        var links: [Link] = []
        for (number, line) in lines.enumerated() where !line.fenced {
            let text = Self.removingCodeSpans(line.text)
            var rest = text[...]
            while let close = rest.range(of: "](") {
                let after = rest[close.upperBound...]
                guard let end = after.firstIndex(of: ")") else { break }
                let target = String(after[..<end]).split(separator: " ").first.map(String.init) ?? ""
                if !target.isEmpty { links.append(Link(target: target, line: number + 1)) }
                rest = after[end...]
            }
        }
        return links
    }

    /// The anchors GitHub gives the headings: lower case, punctuation but `-` and `_` dropped,
    /// spaces as `-`; a repeated slug gets `-1`, `-2`….
    var headingSlugs: [String] {
        var seen: [String: Int] = [:]
        var slugs: [String] = []
        for line in lines where !line.fenced {
            guard let heading = Self.headingText(line.text) else { continue }
            let slug = Self.slug(heading)
            if let count = seen[slug] {
                seen[slug] = count + 1
                slugs.append("\(slug)-\(count + 1)")
            } else {
                seen[slug] = 0
                slugs.append(slug)
            }
        }
        return slugs
    }

    /// The ```sh blocks (not ```sh no-run) under the `## TITLE` heading, up to the next `## `.
    func shellBlocks(inSection title: String) -> [String] {
        var blocks: [String] = []
        var inside = false
        var current: [String]?
        for line in lines {
            if !line.fenced, line.text.hasPrefix("## ") {
                inside = line.text == "## " + title
                continue
            }
            guard inside else { continue }
            if current == nil, line.fenced, line.text.trimmingCharacters(in: .whitespaces) == "```sh" {
                current = []
            } else if var block = current {
                if line.text.trimmingCharacters(in: .whitespaces) == "```" {
                    blocks.append(block.joined(separator: "\n"))
                    current = nil
                } else {
                    block.append(line.text)
                    current = block
                }
            }
        }
        return blocks
    }

    static func headingText(_ line: String) -> String? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
        var text = line.dropFirst(hashes).trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("#") { text.removeLast() }
        return text.trimmingCharacters(in: .whitespaces)
    }

    static func slug(_ heading: String) -> String {
        // A link inside a heading counts by its text.
        var text = heading
        while let open = text.range(of: "]("), let close = text[open.upperBound...].firstIndex(of: ")"),
              let start = text[..<open.lowerBound].lastIndex(of: "[") {
            text = String(text[..<start]) + text[text.index(after: start)..<open.lowerBound] + text[text.index(after: close)...]
        }
        var slug = ""
        for character in text.lowercased() {
            if character == " " {
                slug.append("-")
            } else if character == "-" || character == "_" || character.isLetter || character.isNumber {
                slug.append(character)
            }
        }
        return slug
    }

    /// The line with each `code span` blanked, so a `[x](y)` inside one is no link.
    static func removingCodeSpans(_ line: String) -> String {
        var result = ""
        var inCode = false
        for character in line {
            if character == "`" { inCode.toggle(); result.append(" ") } else { result.append(inCode ? " " : character) }
        }
        return result
    }
}
