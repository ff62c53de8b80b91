import ArgumentParser

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msync-bench",
        abstract: "Benchmarks that print one JSON object per line, each with a baseline measured in the same run.",
        discussion: "Build in release mode: swift run -c release msync-bench store --records 100000",
        subcommands: [
            StoreBenchmark.self, JSONBenchmark.self, SyncDownBenchmark.self, SyncUpBenchmark.self, GhostsBenchmark.self,
            BasesBenchmark.self,
            PagingBenchmark.self,
            ServerLoadBenchmark.self, LiveBenchmark.self, BulkBenchmark.self, ServeOrgCommand.self,
        ]
    )
}
