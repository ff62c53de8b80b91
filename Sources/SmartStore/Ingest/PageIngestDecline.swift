/// Why the scanned page ingest left a page to SQL: the one list of its limits, thrown by
/// ``ScannedPageIngest``'s initialiser before anything is written. Each is a page SQLite's JSON
/// functions read differently from a plain scan, or one the SQL path reports with a precise
/// error; ``PageIngest`` then has SQL write the page, with the same result.
enum PageIngestDecline: Error, Equatable, Sendable {
    /// Unchanged records are to be skipped (a resync's overlap): that check runs in SQL.
    case skipsUnchangedRecords
    /// A field the ingest sets or removes is a nested path.
    case nestedBookkeepingField
    /// The timestamp path is a field the ingest sets or removes.
    case timestampIsBookkeeping
    /// The timestamp is indexed as a number: a page likely to hold numeric stamps, whose max
    /// SQLite computes and prints its own way.
    case numericTimestampColumn
    /// The text has no contiguous UTF-8 storage to scan.
    case noContiguousText
    /// The page is not valid JSON, has no array at the records path, or the array is empty.
    case noRecordsFound
    /// A record is not an object written compactly (whitespace outside strings).
    case notCompact
    /// A record repeats a member name.
    case repeatedMemberName
    /// A record already holds a member the ingest sets or removes.
    case holdsBookkeepingField
    /// A path read meets an escaped member name (SQLite versions differ on unescaping them).
    case escapedMemberName
    /// A value read escapes U+0000, which `json_extract` cuts short.
    case escapedNUL
    /// A record's id is missing, empty, null, an object or an array.
    case noScalarId
    /// Two records of the page have the same id (the SQL path keeps the last).
    case duplicateId
    /// A timestamp that is not a string (SQLite prints other values its own way).
    case nonStringTimestamp
    /// An id is held by more than one entry.
    case idHeldBySeveralEntries
    /// New entry ids would pass the end of the range (the file is outside data).
    case entryIdsExhausted
}
