import SmartStore
import Testing

/// The SDK's QuerySpecTest goldens.
@Suite struct QuerySpecTests {
    @Test func allQuery() {
        let spec = QuerySpec.all(soup: "employees", orderPath: "lastName", order: .descending, pageSize: 1)
        #expect(spec.smartSql == "SELECT {employees:_soup} FROM {employees} ORDER BY {employees:lastName} DESC ")
        #expect(spec.countSmartSql == "SELECT count(*) FROM {employees} ")
        #expect(spec.idsSmartSql == "SELECT id FROM {employees} ORDER BY {employees:lastName} DESC ")
        let paths = QuerySpec.all(
            soup: "employees", selectPaths: ["firstName", "lastName"], orderPath: "lastName", order: .descending, pageSize: 1)
        #expect(paths.smartSql == "SELECT {employees:firstName}, {employees:lastName} FROM {employees} ORDER BY {employees:lastName} DESC ")
    }

    @Test func rangeQuery() {
        let spec = QuerySpec.range(soup: "employees", path: "lastName", begin: "Bond", end: "Smith", orderPath: "lastName", pageSize: 1)
        #expect(
            spec.smartSql
                == "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC "
        )
        #expect(spec.countSmartSql == "SELECT count(*) FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ")
        #expect(
            spec.idsSmartSql
                == "SELECT id FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC "
        )
        #expect(spec.arguments == ["Bond", "Smith"])
        let selected = QuerySpec.range(
            soup: "employees", selectPaths: ["firstName"], path: "lastName", begin: "Bond", end: "Smith", orderPath: "lastName", pageSize: 1
        )
        #expect(
            selected.smartSql
                == "SELECT {employees:firstName} FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC "
        )
        #expect(
            QuerySpec.range(soup: "s", path: "p", begin: nil, end: 3, pageSize: 1).smartSql == "SELECT {s:_soup} FROM {s} WHERE {s:p} <= ? "
        )
        #expect(
            QuerySpec.range(soup: "s", path: "p", begin: 3, end: nil, pageSize: 1).smartSql == "SELECT {s:_soup} FROM {s} WHERE {s:p} >= ? "
        )
    }

    @Test func exactQuery() {
        let spec = QuerySpec.exact(soup: "employees", path: "lastName", key: "Bond", orderPath: "lastName", pageSize: 1)
        #expect(
            spec.smartSql == "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} = ? ORDER BY {employees:lastName} ASC ")
        #expect(spec.countSmartSql == "SELECT count(*) FROM {employees} WHERE {employees:lastName} = ? ")
        #expect(spec.idsSmartSql == "SELECT id FROM {employees} WHERE {employees:lastName} = ? ORDER BY {employees:lastName} ASC ")
        let selected = QuerySpec.exact(
            soup: "employees", selectPaths: ["firstName", "lastName"], path: "lastName", key: "Bond", orderPath: "lastName", pageSize: 1)
        #expect(
            selected.smartSql
                == "SELECT {employees:firstName}, {employees:lastName} FROM {employees} WHERE {employees:lastName} = ? ORDER BY {employees:lastName} ASC "
        )
    }

    @Test func matchQuery() {
        let spec = QuerySpec.match(soup: "employees", path: "lastName", key: "Bond", orderPath: "firstName", pageSize: 1)
        #expect(
            spec.smartSql
                == "SELECT {employees:_soup} FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ORDER BY {employees:firstName} ASC "
        )
        #expect(
            spec.countSmartSql
                == "SELECT count(*) FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') "
        )
        #expect(
            spec.idsSmartSql
                == "SELECT id FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ORDER BY {employees:firstName} ASC "
        )
        let selected = QuerySpec.match(
            soup: "employees", selectPaths: ["firstName", "lastName", "title"], path: "lastName", key: "Bond", orderPath: "firstName",
            pageSize: 1)
        #expect(
            selected.smartSql
                == "SELECT {employees:firstName}, {employees:lastName}, {employees:title} FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ORDER BY {employees:firstName} ASC "
        )
        // A quote in the key is doubled, so it cannot close the literal.
        let hostile = QuerySpec.match(soup: "s", path: nil, key: "x') OR 1=1 --", pageSize: 1)
        #expect(hostile.smartSql.contains("MATCH 'x'') OR 1=1 --')"))
    }

    @Test func likeQuery() {
        let spec = QuerySpec.like(soup: "employees", path: "lastName", pattern: "Bon%", orderPath: "lastName", pageSize: 1)
        #expect(
            spec.smartSql
                == "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} LIKE ? ORDER BY {employees:lastName} ASC ")
        #expect(spec.countSmartSql == "SELECT count(*) FROM {employees} WHERE {employees:lastName} LIKE ? ")
        #expect(spec.idsSmartSql == "SELECT id FROM {employees} WHERE {employees:lastName} LIKE ? ORDER BY {employees:lastName} ASC ")
    }

    @Test func smartQuery() {
        let spec = QuerySpec.smart("select {employees:salary} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1)
        #expect(
            spec.countSmartSql == "SELECT count(*) FROM (select {employees:salary} from {employees} where {employees:lastName} = 'Haas')")
        #expect(spec.idsSmartSql == "SELECT id FROM (select {employees:salary} from {employees} where {employees:lastName} = 'Haas')")
    }

    @Test func qualifyMatchKey() {
        #expect(QuerySpec.qualifyMatchKey(nil, "abc") == "abc")
        #expect(QuerySpec.qualifyMatchKey("{soup:path}", "abc") == "{soup:path}:abc")
        #expect(QuerySpec.qualifyMatchKey("{soup:path1}", "{soup:path2}:abc") == "{soup:path2}:abc")
        #expect(QuerySpec.qualifyMatchKey("{soup:path}", "abc AND def") == "{soup:path}:abc AND {soup:path}:def")
        #expect(QuerySpec.qualifyMatchKey("{soup:path}", "abc OR def") == "{soup:path}:abc OR {soup:path}:def")
        #expect(QuerySpec.qualifyMatchKey("{soup:path1}", "abc OR {soup:path2}:def") == "{soup:path1}:abc OR {soup:path2}:def")
        #expect(
            QuerySpec.qualifyMatchKey("{soup:path}", "(abc AND def) OR ghi") == "({soup:path}:abc AND {soup:path}:def) OR {soup:path}:ghi")
        #expect(
            QuerySpec.qualifyMatchKey("{soup:path1}", "(abc AND {soup:path2}:def) OR ghi")
                == "({soup:path1}:abc AND {soup:path2}:def) OR {soup:path1}:ghi")
    }
}
