import GRDB

extension SmartStore {
    /// Changes the index specs of a soup, keeping its entries.
    ///
    /// Runs as a crash-resumable long operation: each step is recorded in
    /// `long_operations_status`, and opening the store after a crash finishes the job.
    ///
    /// - Parameters:
    ///   - name: the soup.
    ///   - indexSpecs: the soup's index specs from now on (kept, added and dropped as listed).
    ///   - reIndexData: project existing entries into the new indexes now (otherwise new
    ///     column indexes stay empty until entries are saved again or ``reIndexSoup(_:paths:)``).
    public func alterSoup(_ name: String, indexSpecs: [IndexSpec], reIndexData: Bool) throws {
        try alterSoup(name, indexSpecs: indexSpecs, reIndexData: reIndexData, stoppingAfter: nil)
    }

    /// Test seam: runs the alter operation up to and including `lastStep`, as if the process died then.
    func alterSoup(
        _ name: String, indexSpecs: [IndexSpec], reIndexData: Bool,
        stoppingAfter lastStep: AlterSoupOperation.Step?
    ) throws {
        try Self.validate(soup: name, specs: indexSpecs)
        let operation = try write { db in
            try AlterSoupOperation.start(db, soup: try requireSoup(db, named: name), newSpecs: indexSpecs, reIndexData: reIndexData)
        }
        cache.invalidate()
        if lastStep == .starting { return }
        try run(operation, after: .starting, stoppingAfter: lastStep)
    }

    private func run(
        _ operation: AlterSoupOperation, after done: AlterSoupOperation.Step,
        stoppingAfter lastStep: AlterSoupOperation.Step? = nil
    ) throws {
        var step = done.next
        defer { cache.invalidate() }
        while let current = step {
            try write { db in try operation.run(current, db) }
            cache.invalidate()
            if current == lastStep { return }
            step = current.next
        }
    }

    /// Finishes alter-soup operations a crash interrupted (the SDK's `resumeLongOperations`). A
    /// file store calls it when it opens, so an app needs it only to retry after that failed.
    public func resumeLongOperations() throws {
        for (operation, done) in try read({ db in try AlterSoupOperation.pending(db) }) {
            try run(operation, after: done)
        }
    }

    /// Re-projects the given paths of every entry into their index columns (json1 paths need
    /// no work) and refreshes the full-text table.
    public func reIndexSoup(_ name: String, paths: [String]) throws {
        try write { db in try SoupReindexer.reindex(db, soup: try requireSoup(db, named: name), paths: paths) }
    }
}
