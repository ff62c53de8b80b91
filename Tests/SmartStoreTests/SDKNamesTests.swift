import FastJSON
import SmartStore
import Testing

/// The SDK's SmartStore names, spelled as an SDK app spells them.
@Suite struct SDKNamesTests {
    @Test func registerSoupWithIndexPathsAndQueryAsAResult() throws {
        let store = try SmartStore()
        try store.registerSoup(withName: "Account", withIndexPaths: ["Name", "Industry"])
        #expect(try store.soupNames() == ["Account"])
        for index in 0..<2_500 { _ = try store.create(["Name": .string("A\(index)"), "Industry": "Energy"], in: "Account") }
        // Every row, across pages.
        let all = store.query("select {Account:Name} from {Account} order by {Account:Name}")
        #expect((try? all.get())?.count == 2_500)
        #expect((try? all.get())?.first == ["A0"])
        // An unknown soup is the error, not a throw.
        guard case .failure(let error) = store.query("select {Nope:Name} from {Nope}") else {
            Issue.record("a query of an unknown soup succeeded")
            return
        }
        #expect("\(error)".contains("Nope"))
        #expect(SmartStore.defaultStoreName == StoreDirectory.defaultStoreName)
    }
}
