import ArgumentParser
import Foundation

@main
struct MsyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msync",
        abstract: "An offline-first data stack for Swift: SmartStore soups, Mobile Sync, LocalForce.",
        version: version,
        subcommands: [
            DemoCommand.self, LoginCommand.self, LogoutCommand.self, QueryCommand.self, SoupsCommand.self, SyncsCommand.self,
            ConflictsCommand.self, ResolveCommand.self, InspectCommand.self, PutCommand.self, EditCommand.self, DeleteCommand.self,
            ServeCommand.self, StoreCommand.self, SyncCommand.self,
        ]
    )

    /// What `msync --version` prints: this release of the stack (SmartStore, MobileSync,
    /// LocalForce and msync are released together). Raised with each release.
    static let version = "0.9.0"

    /// Runs the command line; a word where a command's name belongs that names none is said
    /// with the closest name (did you mean), before ArgumentParser's "Unexpected argument".
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let unknown = unknownCommand(in: arguments) {
            FileHandle.standardError.write(Data("Error: \(unknown)\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(arguments)
    }

    /// What to say when a word of `arguments` sits where a command's name belongs (`msync synk`,
    /// `msync store encrpt`) and names none; nil when the command line names commands only.
    static func unknownCommand(in arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = MsyncCommand.self
        var path: [String] = []
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-"), word != "help" else { return nil }
            guard let next = subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) else {
                let kind = (path + ["command"]).joined(separator: " ")
                let names = subcommands.map { subcommand in subcommand._commandName }
                return Suggestion.unknown(kind, word, known: names, shown: names.count)
            }
            command = next
            path.append(word)
        }
        return nil
    }
}
