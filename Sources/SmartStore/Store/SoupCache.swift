import Foundation

/// The store's in-memory knowledge of its soups and of translated Smart SQL.
///
/// Soup lookups sit on every operation, so they are cached; anything that changes a soup's
/// shape (register, alter, drop) calls ``invalidate()``. Thread-safe through a lock because
/// the store is used from many tasks at once.
final class SoupCache: @unchecked Sendable {
    private let lock = NSLock()
    private var soups: [String: Soup] = [:]
    private var translations: [String: String] = [:]
    private static let translationLimit = 1024

    func soup(named name: String) -> Soup? {
        lock.withLock { soups[name] }
    }

    func store(_ soup: Soup) {
        lock.withLock { soups[soup.name] = soup }
    }

    func translation(of smartSql: String) -> String? {
        lock.withLock { translations[smartSql] }
    }

    func storeTranslation(_ sql: String, of smartSql: String) {
        lock.withLock {
            if translations.count >= Self.translationLimit { translations.removeAll(keepingCapacity: true) }
            translations[smartSql] = sql
        }
    }

    func invalidate() {
        lock.withLock {
            soups.removeAll()
            translations.removeAll()
        }
    }
}
