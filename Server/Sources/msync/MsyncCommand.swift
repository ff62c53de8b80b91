import ArgumentParser

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
}
