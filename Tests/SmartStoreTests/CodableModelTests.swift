import SmartStore
import Testing

/// Typed convenience: Codable models in and out of a soup.
@Suite struct CodableModelTests {
    // Salesforce's field names, as the soup stores them.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    struct Contact: Codable, Equatable {
        var _soupEntryId: Int64?
        var Id: String
        var FirstName: String
        var LastName: String
        var Age: Int?
    }

    @Test func upsertAndQueryModels() throws {
        let store = try SmartStore()
        try store.registerSoup("contacts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("LastName", .string)])
        let saved = try store.upsertModels(
            [
                Contact(Id: "003A", FirstName: "Ada", LastName: "Lovelace", Age: 36),
                Contact(Id: "003B", FirstName: "Alan", LastName: "Turing"),
            ], in: "contacts")
        #expect(saved.map(\._soupEntryId) == [1, 2])
        var ada = saved[0]
        ada.Age = 37
        #expect(try store.upsertModel(ada, in: "contacts")._soupEntryId == 1)
        let byExternalId = try store.upsertModel(
            Contact(Id: "003B", FirstName: "Alan M.", LastName: "Turing"), in: "contacts", externalIdPath: "Id")
        #expect(byExternalId._soupEntryId == 2)
        let all = try store.query(.all(soup: "contacts", orderPath: "LastName", pageSize: 10), as: Contact.self)
        #expect(all.map(\.FirstName) == ["Ada", "Alan M."])
        #expect(all[0].Age == 37)
        let smart = try store.query(
            .smart("select {contacts:_soup} from {contacts} where {contacts:LastName} = ?", pageSize: 5),
            as: Contact.self, column: 0, arguments: ["Turing"])
        #expect(smart.map(\.Id) == ["003B"])
        #expect(throws: SmartStoreError.self) { try store.query(.smart("select 1", pageSize: 1), as: Contact.self) }
    }

    @Test func entriesThatDoNotFitTheModelAreTypedErrors() throws {
        let store = try SmartStore()
        try store.registerSoup("contacts", indexSpecs: [IndexSpec("Id", .string)])
        try store.create(["Id": "x"], in: "contacts")
        #expect(throws: SmartStoreError.self) { try store.query(.all(soup: "contacts", pageSize: 10), as: Contact.self) }
    }
}
