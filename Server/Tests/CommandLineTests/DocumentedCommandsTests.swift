import Foundation
import TestSupport
import Testing

/// Every msync command line the guide and the README show names commands and options that
/// msync has: a renamed or removed option fails here, not in a reader's shell.
@Suite struct DocumentedCommandsTests {
    static let documents = ["docs/msync.md", "README.md"].map { Msync.serverPackage.deletingLastPathComponent().appendingPathComponent($0) }

    /// The command lines of `text`: lines of its code blocks, and inline code, that start with `msync `.
    static func commandLines(_ text: String) -> [String] {
        var lines: [String] = []
        var inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock.toggle()
            } else if inBlock, line.hasPrefix("msync ") {
                lines.append(String(line.split(separator: "#").first ?? line))
            }
        }
        for span in text.components(separatedBy: "`").enumerated() where span.offset % 2 == 1 && span.element.hasPrefix("msync ") {
            lines.append(span.element)
        }
        return lines
    }

    /// A command's subcommands, read from its help's SUBCOMMANDS section.
    static func subcommands(_ help: String) -> Set<String> {
        guard let section = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [] }
        return Set(
            section.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.compactMap {
                $0.split(separator: " ").first.map(String.init)
            })
    }

    @Test func documentedCommandsAndOptionsExist() async throws {
        var helps: [[String]: String] = [:]
        func help(_ path: [String]) async throws -> String {
            if let known = helps[path] { return known }
            var environment = ProcessInfo.processInfo.environment
            environment["COLUMNS"] = "1000"
            let (status, text) = try await Msync.run(path + ["--help"], environment: environment)
            #expect(status == 0, "msync \(path.joined(separator: " ")) --help: \(text)")
            helps[path] = text
            return text
        }
        var checked = 0
        for document in Self.documents {
            for line in Self.commandLines(try String(contentsOf: document, encoding: .utf8)) {
                let words = line.split(whereSeparator: \.isWhitespace).dropFirst().map(String.init)
                var path: [String] = []
                for word in words {
                    guard Self.subcommands(try await help(path)).contains(word) else { break }
                    path.append(word)
                }
                #expect(!path.isEmpty || words.first?.hasPrefix("-") == true, "\(document.lastPathComponent): no command in: \(line)")
                let text = try await help(path)
                for word in words where word.hasPrefix("--") {
                    let option = String(word.prefix { $0 != "=" && $0 != "]" })
                    let named =
                        text.range(of: option + " ") != nil || text.range(of: option + ",") != nil || text.range(of: option + "\n") != nil
                    #expect(named, "\(document.lastPathComponent): msync \(path.joined(separator: " ")) has no \(option): \(line)")
                }
                checked += 1
            }
        }
        #expect(checked > 30, "\(checked) command lines")
    }
}
