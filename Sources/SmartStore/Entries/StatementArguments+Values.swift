import GRDB

extension StatementArguments {
    /// Arguments from values that are already `DatabaseValue`s.
    ///
    /// GRDB's `init(_:)` for a sequence of a concrete type maps it through a generic key path,
    /// which the runtime instantiates on every call: more than half of a point lookup's time.
    /// Its initialiser for optional existentials maps through a closure instead.
    init(databaseValues values: [DatabaseValue]) {
        self.init(values.map { Optional($0 as any DatabaseValueConvertible) })
    }
}
