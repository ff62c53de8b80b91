import Testing

@testable import SmartStore

/// Scenario 2: the SDK's golden Smart SQL translations (SmartSqlTest), verbatim.
@Suite struct SmartSQLTranslationTests {
    let store: SmartStore

    init() throws {
        store = try EmployeesFixture.makeStore()
    }

    @Test(arguments: [
        (
            "select {employees:firstName}, {employees:lastName} from {employees} order by {employees:lastName}",
            "select TABLE_1_0, TABLE_1_1 from TABLE_1 order by TABLE_1_1"
        ),
        (
            "select {departments:name} from {departments} order by {departments:deptCode}",
            "select TABLE_2_1 from TABLE_2 order by TABLE_2_0"
        ),
        (
            "select {departments:name}, {employees:firstName} || ' ' || {employees:lastName} from {employees}, {departments} where {departments:deptCode} = {employees:deptCode} order by {departments:name}, {employees:lastName}",
            "select TABLE_2_1, TABLE_1_0 || ' ' || TABLE_1_1 from TABLE_1, TABLE_2 where TABLE_2_0 = TABLE_1_2 order by TABLE_2_1, TABLE_1_1"
        ),
        (
            "select mgr.{employees:lastName}, e.{employees:lastName} from {employees} as mgr, {employees} as e where mgr.{employees:employeeId} = e.{employees:managerId}",
            "select mgr.TABLE_1_1, e.TABLE_1_1 from TABLE_1 as mgr, TABLE_1 as e where mgr.TABLE_1_3 = e.TABLE_1_4"
        ),
        (
            "select mgr.{employees:education}, e.{employees:education} from {employees} as mgr, {employees} as e where mgr.{employees:employeeId} = e.{employees:managerId}",
            "select json_extract(mgr.soup, '$.education'), json_extract(e.soup, '$.education') from TABLE_1 as mgr, TABLE_1 as e where mgr.TABLE_1_3 = e.TABLE_1_4"
        ),
        (
            "select mgr.{employees:education},e.{employees:education} from {employees} as mgr, {employees} as e",
            "select json_extract(mgr.soup, '$.education'),json_extract(e.soup, '$.education') from TABLE_1 as mgr, TABLE_1 as e"
        ),
        (
            "select {employees:_soupEntryId}, {employees:_soupCreatedDate}, {employees:_soupLastModifiedDate}, {employees:_soup} from {employees}",
            "select TABLE_1.id, TABLE_1.created, TABLE_1.lastModified, TABLE_1.soup from TABLE_1"
        ),
        (
            "select {employees:_soupEntryId}, {departments:_soupEntryId} from {employees}, {departments}",
            "select TABLE_1.id, TABLE_2.id from TABLE_1, TABLE_2"
        ),
        (
            "select mgr.{employees:_soupEntryId}, e.{employees:_soupEntryId} from {employees} as mgr, {employees} as e",
            "select mgr.id, e.id from TABLE_1 as mgr, TABLE_1 as e"
        ),
        (
            "select {employees:lastName}, {employees:education} from {employees} where {employees:education} = 'MIT'",
            "select TABLE_1_1, json_extract(soup, '$.education') from TABLE_1 where json_extract(soup, '$.education') = 'MIT'"
        ),
        (
            "select {employees}.{employees:education} from {employees} order by {employees}.{employees:education}",
            "select json_extract(TABLE_1.soup, '$.education') from TABLE_1 order by json_extract(TABLE_1.soup, '$.education')"
        ),
        (
            "select e.{employees:education}, {departments:building} from {employees} as e, {departments}",
            "select json_extract(e.soup, '$.education'), json_extract(soup, '$.building') from TABLE_1 as e, TABLE_2"
        ),
        (
            "select {employees:education}, {employees:address.zipcode} from {employees} where {employees:address.city} = 'San Francisco'",
            "select json_extract(soup, '$.education'), json_extract(soup, '$.address.zipcode') from TABLE_1 where json_extract(soup, '$.address.city') = 'San Francisco'"
        ),
        (
            "select {employees:education} from {employees} where {employees:education} like 'Account(where: {Name: {eq: \"Jason\"}})'",
            "select json_extract(soup, '$.education') from TABLE_1 where json_extract(soup, '$.education') like 'Account(where: {Name: {eq: \"Jason\"}})'"
        ),
        (
            "SELECT json_set('{}', '$.data.uiapi.query.Account.edges', ( SELECT json_group_array(json_set('{}', '$.node.Id', (json_extract('Account.JSON', '$.data.fields.Id.value')) )) FROM (SELECT 'Account'.TABLE_1_1 as 'Account.JSON' FROM TABLE_1 as 'Account' WHERE ( json_extract('Account.JSON', '$.data.apiName') = 'Account' ) ) ) ) as json",
            "SELECT json_set('{}', '$.data.uiapi.query.Account.edges', ( SELECT json_group_array(json_set('{}', '$.node.Id', (json_extract('Account.JSON', '$.data.fields.Id.value')) )) FROM (SELECT 'Account'.TABLE_1_1 as 'Account.JSON' FROM TABLE_1 as 'Account' WHERE ( json_extract('Account.JSON', '$.data.apiName') = 'Account' ) ) ) ) as json"
        ),
        (
            "select {employees:education}, '{a:b}', {employees:firstName} from {employees} where {employees:address} = '{\"city\": \"San Francisco\"}' or {employees:lastName} like 'B%'",
            "select json_extract(soup, '$.education'), '{a:b}', TABLE_1_0 from TABLE_1 where json_extract(soup, '$.address') = '{\"city\": \"San Francisco\"}' or TABLE_1_1 like 'B%'"
        ),
        (
            "select {employees:education} from {employees} where {employees:education} like ' { { { } } '",
            "select json_extract(soup, '$.education') from TABLE_1 where json_extract(soup, '$.education') like ' { { { } } '"
        ),
        // MATCH literals are translated (full-text column references).
        (
            "SELECT {employees:_soup} FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ",
            "SELECT TABLE_1.soup FROM TABLE_1 WHERE TABLE_1.id IN (SELECT rowid FROM TABLE_1_fts WHERE TABLE_1_fts MATCH 'TABLE_1_1:Bond') "
        ),
    ])
    func golden(_ smartSql: String, _ expected: String) throws {
        #expect(try store.convertSmartSql(smartSql) == expected)
    }

    @Test(arguments: [
        "insert into {employees}", "update {employees}", "delete from {employees}",
        "  DELETE FROM {employees}", "drop table {employees}", "pragma writable_schema = 1",
    ])
    func onlySelectIsSupported(_ smartSql: String) throws {
        #expect(throws: SmartStoreError.invalidSmartSQL("Only SELECT are supported")) { try store.convertSmartSql(smartSql) }
    }

    @Test func badReferencesAreReportedWithTheirPosition() throws {
        #expect(throws: SmartStoreError.invalidSmartSQL("Invalid soup/path reference {employees:a:b} at character 7")) {
            try store.convertSmartSql("select {employees:a:b} from {employees}")
        }
        #expect(throws: SmartStoreError.invalidSmartSQL("Unknown soup nosuch at character 7")) {
            try store.convertSmartSql("select {nosuch:a} from {nosuch}")
        }
        #expect(throws: SmartStoreError.invalidSmartSQL("Invalid path a') from x;-- at character 7")) {
            try store.convertSmartSql("select {employees:a') from x;--} from {employees}")
        }
    }

    @Test func translationsAreCachedAndInvalidatedByAlter() throws {
        let smartSql = "select {employees:education} from {employees}"
        #expect(try store.convertSmartSql(smartSql) == "select json_extract(soup, '$.education') from TABLE_1")
        try store.alterSoup("employees", indexSpecs: [IndexSpec("education", .string)], reIndexData: true)
        #expect(try store.convertSmartSql(smartSql) == "select TABLE_1_0 from TABLE_1")
    }

    @Test func columnsAreNamedAsTheSmartSQLWroteThem() throws {
        let smartSql = """
            select {employees:firstName} || ' ' || {employees:lastName}, {employees:lastName}, upper(e.{employees:education}), \
            length(e.{employees:_soup}) as size, count(*), {employees:firstName}||'!' from {employees} as e group by e.{employees:_soupEntryId}
            """
        #expect(
            try store.columnNames(of: .smart(smartSql, pageSize: 10)) == [
                "{employees:firstName} || ' ' || {employees:lastName}", "lastName", "upper(e.{employees:education})", "size", "count(*)",
                "{employees:firstName}||'!'",
            ])
        // A qualifier that is a reference itself maps back as one piece.
        let qualified = "select upper({employees}.{employees:education}) from {employees}"
        #expect(try store.columnNames(of: .smart(qualified, pageSize: 10)) == ["upper({employees}.{employees:education})"])
        // A repeated expression keeps SQLite's suffix; a whole entry stays `soup`.
        let repeated = "select {employees:lastName} || 'x', {employees:lastName} || 'x', {employees:_soup} from {employees}"
        #expect(
            try store.columnNames(of: .smart(repeated, pageSize: 10)) == [
                "{employees:lastName} || 'x'", "{employees:lastName} || 'x':1", "soup",
            ])
        // A soup table's own columns go by their paths, not SQLite's `id`, unless an alias says so.
        let own = "select {employees:_soupEntryId}, {employees:_soupLastModifiedDate}, {employees:_soupCreatedDate} from {employees}"
        #expect(try store.columnNames(of: .smart(own, pageSize: 10)) == ["_soupEntryId", "_soupLastModifiedDate", "_soupCreatedDate"])
        let aliased = "select {employees:_soupEntryId} AS id, {employees:lastName} from {employees}"
        #expect(try store.columnNames(of: .smart(aliased, pageSize: 10)) == ["id", "lastName"])
        let bare = "select {employees:lastName} id from {employees} where {employees:_soupEntryId} > 0"
        #expect(try store.columnNames(of: .smart(bare, pageSize: 10)) == ["id"])
    }

    @Test func aSourceMapTakesASpanBackToWhatWasWritten() {
        // "a {s:p} b" → "a COL_LONGER b": the reference's 5 bytes became 10.
        let map = SourceMap(pieces: [SourceMap.Piece(output: 2..<12, input: 2..<7)])
        #expect(map.input(of: 0..<1) == 0..<1)
        #expect(map.input(of: 0..<14) == 0..<9)
        #expect(map.input(of: 4..<6) == 2..<7) // inside the reference: all of it
        #expect(map.input(of: 13..<14) == 8..<9)
        #expect(map.input(of: 5..<14) == 2..<9)
    }
}
