import Locking

/// The store's in-memory knowledge of its soups and of translated Smart SQL.
///
/// Soup lookups sit on every operation, so they are cached; anything that changes a soup's
/// shape (register, alter, drop) calls ``invalidate()``. Locked because the store is used from
/// many tasks at once.
final class SoupCache: Sendable {
    private struct Contents {
        var soups: [String: Soup] = [:]
        var translations: [String: String] = [:]
    }

    private let contents = Locked(Contents())
    private static let translationLimit = 1024

    func soup(named name: String) -> Soup? {
        contents.withLock { $0.soups[name] }
    }

    func store(_ soup: Soup) {
        contents.withLock { $0.soups[soup.name] = soup }
    }

    func translation(of smartSql: String) -> String? {
        contents.withLock { $0.translations[smartSql] }
    }

    func storeTranslation(_ sql: String, of smartSql: String) {
        contents.withLock {
            if $0.translations.count >= Self.translationLimit { $0.translations.removeAll(keepingCapacity: true) }
            $0.translations[smartSql] = sql
        }
    }

    func invalidate() {
        contents.withLock { $0 = Contents() }
    }
}
