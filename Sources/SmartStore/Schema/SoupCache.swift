import Locking

/// The store's in-memory knowledge of its soups and of translated Smart SQL.
///
/// Soup lookups sit on every operation, so they are cached; anything that changes a soup's
/// shape (register, alter, drop) calls ``invalidate()``. Locked because the store is used from
/// many tasks at once.
final class SoupCache: Sendable {
    private struct Contents {
        var soups: [String: Soup] = [:]
        var translations: [String: Translation] = [:]
    }

    /// Smart SQL translated: the SQL, and the statement of one page of it.
    struct Translation: Sendable {
        let sql: String
        /// `SELECT * FROM (sql) LIMIT ?,?`, built once rather than on every query.
        let pagedSQL: String

        init(_ sql: String) {
            self.sql = sql
            pagedSQL = "SELECT * FROM (\(sql)) LIMIT ?,?"
        }
    }

    private let contents = Locked(Contents())
    private static let translationLimit = 1024

    func soup(named name: String) -> Soup? {
        contents.withLock { $0.soups[name] }
    }

    func store(_ soup: Soup) {
        contents.withLock { $0.soups[soup.name] = soup }
    }

    func translation(of smartSql: String) -> Translation? {
        contents.withLock { $0.translations[smartSql] }
    }

    func storeTranslation(_ sql: Translation, of smartSql: String) {
        contents.withLock {
            if $0.translations.count >= Self.translationLimit { $0.translations.removeAll(keepingCapacity: true) }
            $0.translations[smartSql] = sql
        }
    }

    func invalidate() {
        contents.withLock { $0 = Contents() }
    }
}
