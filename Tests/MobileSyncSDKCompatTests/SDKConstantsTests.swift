import FastJSON
import MobileSync
import MobileSyncSDKCompat
import SmartStore
import Testing

/// The SDK's constants are the values the store and the engine use.
@Suite struct SDKConstantsTests {
    @Test func indexTypesAndQueryKindsAreTheStoresOwn() throws {
        let store = try SmartStore()
        let types = [kSoupIndexTypeString, kSoupIndexTypeInteger, kSoupIndexTypeFloating, kSoupIndexTypeFullText, kSoupIndexTypeJSON1]
        let specs = try zip(["a", "b", "c", "d", "e"], types).map { path, type in
            IndexSpec(path: path, type: try #require(SoupIndexType(rawValue: type)))
        }
        try store.registerSoup("things", indexSpecs: specs)
        #expect(try store.indexSpecs(ofSoup: "things").map(\.type.rawValue) == types)
        let json = QuerySpec.exact(soup: "things", path: "a", key: "x", pageSize: 5).sdkJSON
        #expect(json[kQuerySpecParamQueryType] == .string(kQuerySpecTypeExact))
        #expect(json[kQuerySpecParamIndexPath] == "a" && json[kQuerySpecParamMatchKey] == "x")
        #expect(json[kQuerySpecParamPageSize] == 5 && json[kQuerySpecParamOrder] == .string(kQuerySpecSortOrderAscending))
        let smart = try QuerySpec(sdkJSON: [kQuerySpecParamQueryType: .string(kQuerySpecTypeSmart), kQuerySpecParamSmartSql: "select 1"])
        #expect(smart.kind == .smart && smart.pageSize == Int(kQuerySpecDefaultPageSize))
        for kind in [kQuerySpecTypeRange, kQuerySpecTypeLike, kQuerySpecTypeMatch] { #expect(QuerySpec.Kind(rawValue: kind) != nil) }
        #expect(QuerySpec.Order(rawValue: kQuerySpecSortOrderDescending) == .descending)
    }

    @Test func aLocalRecordCarriesTheSyncTargetFields() throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: kSyncTargetLocal, type: .string)])
        let record = try store.createLocally(["Name": "Offline Co"], objectType: "Account", in: "accounts")
        #expect(record[kSyncTargetLocal] == true && record[kSyncTargetLocallyCreated] == true)
        #expect(record[kSyncTargetLocallyUpdated] == false && record[kSyncTargetLocallyDeleted] == false)
        #expect(record[SmartStore.soupEntryId]?.int64Value != nil && record[SmartStore.lastModifiedDate]?.int64Value != nil)
        #expect([kSyncTargetSyncId, kSyncTargetLastError] == [LocalFields.syncId, LocalFields.lastError])
        #expect(SmartStore.defaultStoreName == "defaultStore" && kSoupIndexPath == "path" && kSoupIndexType == "type")
        #expect(record[kId] != nil && record[kAttributes]?["type"] == "Account" && kObjectTypeField == kAttributes + ".type")
    }
}
