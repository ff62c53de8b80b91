import Foundation
import Testing

/// `msync <command> --help` reads as prose: a backslash only where an example shell command
/// goes on to its next option.
@Suite struct CommandLineHelpTests {
    static let commands = [
        "demo", "login", "logout", "query", "soups", "syncs", "conflicts", "resolve", "inspect", "put", "edit", "delete", "serve",
        "store", "sync",
    ]

    @Test(arguments: commands) func helpHasNoStrayBackslashes(command: String) async throws {
        let (status, text) = try await Msync.run([command, "--help"])
        #expect(status == 0, "\(text)")
        // However the help wraps, a backslash may only continue an example command onto its
        // next option.
        let words = text.split(whereSeparator: \.isWhitespace)
        let stray = words.indices.filter { index in
            words[index] == "\\" && !(index + 1 < words.count && words[index + 1].hasPrefix("-"))
        }
        #expect(stray.isEmpty, "\(command) --help: \(text)")
        // ASCII only: the manual page (scripts/man.sh) drops any other character.
        #expect(text.unicodeScalars.allSatisfy { $0.isASCII }, "\(command) --help: \(text)")
    }

    /// An example in the help is never broken mid-command at 80 columns (the width help takes
    /// when it is piped): each example line printed at 80 columns is the line printed at 1,000.
    @Test(arguments: commands + ["store encrypt", "store rekey", "store export"])
    func examplesFitEightyColumns(command: String) async throws {
        var narrow = ProcessInfo.processInfo.environment
        narrow["COLUMNS"] = "80"
        var wide = narrow
        wide["COLUMNS"] = "1000"
        let arguments = command.split(separator: " ").map(String.init) + ["--help"]
        let (_, at80) = try await Msync.run(arguments, environment: narrow)
        let (_, at1000) = try await Msync.run(arguments, environment: wide)
        let wideLines = Set(at1000.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        // Examples are indented under the discussion's prose (which wraps at two spaces).
        let examples = at80.split(separator: "\n").filter { $0.hasPrefix("    ") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("msync ") || $0.hasSuffix(" \\") }
        for line in examples { #expect(wideLines.contains(line), "\(command) --help breaks an example at 80 columns: \(line)") }
    }

    @Test func versionIsPrinted() async throws {
        let (status, text) = try await Msync.run(["--version"])
        let printed = text.split(separator: ".").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(status == 0 && printed.count == 3 && text.hasSuffix("\n"), "\(text)")
    }

    /// `query` says what it prints: a table on a terminal, JSON lines when piped.
    @Test func queryHelpSaysWhatItPrints() async throws {
        let (status, help) = try await Msync.run(["query", "--help"])
        #expect(status == 0)
        let text = help.split(whereSeparator: \.isWhitespace).joined(separator: " ") // however it wraps
        #expect(text.contains("a table on a terminal"), "\(help)")
        #expect(!text.contains("print the rows as JSON."), "\(help)")
    }

    /// A command name typed wrong gets the closest one and the list, at every level; `help`
    /// and options still reach ArgumentParser.
    @Test func aCommandTypedWrongGetsTheClosestOne() async throws {
        let (status, text) = try await Msync.run(["synk", "--store", "x.sqlite"])
        #expect(status == 64, "\(text)")
        #expect(text.hasPrefix("Error: no command named synk; did you mean sync? (commands: demo, login, logout, query,"), "\(text)")
        #expect(text.contains(", sync)") && !text.contains("Usage:"), "\(text)")
        let (storeStatus, store) = try await Msync.run(["store", "encrpt"])
        #expect(storeStatus == 64 && store.contains("no store command named encrpt; did you mean encrypt?"), "\(store)")
        let (helpStatus, help) = try await Msync.run(["help", "sync"])
        #expect(helpStatus == 0 && help.contains("USAGE: msync sync"), "\(help)")
        let (versionStatus, version) = try await Msync.run(["--version"])
        #expect(versionStatus == 0 && !version.contains("Error"), "\(version)")
    }
}
