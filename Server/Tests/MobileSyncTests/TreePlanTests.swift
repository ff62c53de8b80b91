import FastJSON
import SalesforceWire
import Testing

@testable import MobileSync

/// The parent/children sync up's plan and outcome, without a server or a store.
@Suite struct TreePlanTests {
    static func target(_ type: RelationshipType = .lookup) -> ParentChildrenSyncUpTarget {
        ParentChildrenSyncUpTarget(
            parent: ParentInfo(objectType: "Account", soupName: "accounts"),
            children: ChildrenInfo(
                objectType: "Contact", objectTypePlural: "Contacts", soupName: "contacts", parentIdFieldName: "AccountId"),
            relationshipType: type, createFieldlist: ["Name"], updateFieldlist: ["Name"], childrenCreateFieldlist: ["LastName"],
            childrenUpdateFieldlist: ["LastName"])
    }

    static func record(_ entryId: Int64, _ id: String, _ flag: String?, _ fields: [String: JSONValue]) -> JSONValue {
        var record: [String: JSONValue] = [
            "_soupEntryId": .int(entryId), "Id": .string(id), "LastModifiedDate": "2026-01-01T00:00:00.000Z",
            "__local__": .bool(flag != nil), "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false,
        ]
        if let flag { record[flag] = true }
        return .object(record.merging(fields) { $1 })
    }

    static func plan(
        _ parent: JSONValue, _ children: [JSONValue], type: RelationshipType = .lookup, mode: MergeMode = .overwrite,
        knownGone: Set<String> = [], pass: Int = 1
    ) throws -> TreePlan {
        try TreePlan(
            parent: parent, children: children, target: target(type), options: SyncOptions(mergeMode: mode), knownGone: knownGone,
            apiVersion: "62.0", pass: pass)
    }

    static let created = "__locally_created__"
    static let updated = "__locally_updated__"
    static let deleted = "__locally_deleted__"

    @Test func newParentWithNewChildren() throws {
        let plan = try Self.plan(
            Self.record(1, "local_1", Self.created, ["Name": "Acme"]),
            [Self.record(10, "local_10", Self.created, ["LastName": "A"]), Self.record(11, "003B", nil, ["LastName": "B"])])
        #expect(
            plan.subrequests.map { "\($0.method) \($0.url)" } == [
                "POST /services/data/v62.0/sobjects/Account", "POST /services/data/v62.0/sobjects/Contact",
            ])
        #expect(plan.subrequests[0].body == ["Name": "Acme"])
        #expect(plan.subrequests[1].body == ["LastName": "A", "AccountId": "@{parent.id}"])
        #expect(!plan.allOrNone && plan.parentDeletes.isEmpty && plan.childDeletes.isEmpty)

        let outcome = plan.outcome(of: [
            CompositeSubresponse(referenceId: "parent", httpStatusCode: 201, body: ["id": "001N"]),
            CompositeSubresponse(referenceId: "child0", httpStatusCode: 201, body: ["id": "003N"]),
        ])
        #expect(outcome.parentUpserts.map { $0["Id"] } == ["001N"])
        #expect(outcome.parentUpserts.first?["__local__"] == false)
        // The new child is cleaned with its id; the clean one is re-pointed at the new parent.
        #expect(
            outcome.childUpserts.map { [$0["Id"], $0["AccountId"], $0["__local__"]] } == [
                ["003N", "001N", false], ["003B", "001N", false],
            ])
        #expect(outcome.failed == 0 && !outcome.recreateParent && outcome.recreateChildren.isEmpty)
    }

    @Test func masterDetailParentDeletedTakesItsChildren() throws {
        let plan = try Self.plan(
            Self.record(1, "001A", Self.deleted, [:]), [Self.record(10, "003A", Self.updated, ["LastName": "A"])], type: .masterDetail)
        #expect(plan.subrequests.map { "\($0.method) \($0.url)" } == ["DELETE /services/data/v62.0/sobjects/Account/001A"])
        let outcome = plan.outcome(of: [CompositeSubresponse(referenceId: "parent", httpStatusCode: 204)])
        #expect(outcome.parentDeletes == [1] && outcome.childDeletes == [10] && outcome.childUpserts.isEmpty)
    }

    @Test func parentNeverSyncedGoesLocallyWithoutARequest() throws {
        let plan = try Self.plan(
            Self.record(1, "local_1", Self.deleted, ["__locally_created__": true]), [Self.record(10, "local_10", Self.created, [:])])
        #expect(plan.subrequests.isEmpty && plan.parentDeletes == [1] && plan.childDeletes == [10])
    }

    @Test func leaveIfChangedIsConditionalAndAllOrNone() throws {
        let plan = try Self.plan(
            Self.record(1, "001A", Self.updated, ["Name": "New"]), [Self.record(10, "003A", Self.deleted, [:])], mode: .leaveIfChanged,
            knownGone: ["003A"])
        #expect(plan.allOrNone)
        #expect(plan.subrequests.map(\.method) == ["PATCH"])
        #expect(plan.subrequests.first?.unmodifiedSince == SalesforceTime.parse("2026-01-01T00:00:00.000Z"))
        // Gone on the server too: deleted locally, no request.
        #expect(plan.childDeletes == [10] && plan.handledLocally == [0])
        // Changed on the server meanwhile: 412, the tree stays dirty without an error of its own.
        let outcome = plan.outcome(of: [
            CompositeSubresponse(referenceId: "parent", httpStatusCode: 412, body: [["errorCode": "PRECONDITION_FAILED", "message": "x"]])
        ])
        #expect(outcome == TreeOutcome())
    }

    @Test func overwriteRecreatesAChildTheServerLostButOnlyTwice() throws {
        let child = Self.record(10, "003A", Self.updated, ["LastName": "A"])
        let gone = CompositeSubresponse(
            referenceId: "child0", httpStatusCode: 404, body: [["errorCode": "NOT_FOUND", "message": "gone"]])
        let first = try Self.plan(Self.record(1, "001A", nil, [:]), [child]).outcome(of: [gone])
        #expect(first.recreateChildren == [0] && first.failed == 0)
        let third = try Self.plan(Self.record(1, "001A", nil, [:]), [child], pass: 3).outcome(of: [gone])
        #expect(third.recreateChildren.isEmpty && third.childErrors.count == 1)
        #expect(third.childErrors.first?["__last_error__"]?.stringValue?.contains("NOT_FOUND") == true)
    }

    @Test func aChildCreatedUnderAParentTheServerDeletedBringsTheParentBack() throws {
        let plan = try Self.plan(Self.record(1, "001A", nil, [:]), [Self.record(10, "local_10", Self.created, ["LastName": "A"])])
        #expect(plan.subrequests.first?.body == ["LastName": "A", "AccountId": "001A"])
        let outcome = plan.outcome(of: [
            CompositeSubresponse(
                referenceId: "child0", httpStatusCode: 400,
                body: [["errorCode": "ENTITY_IS_DELETED", "message": "entity is deleted", "fields": ["AccountId"]]])
        ])
        #expect(outcome.recreateParent && outcome.failed == 0)
    }

    @Test func aRecordWithoutFieldsToSendIsATypedError() {
        let target = ParentChildrenSyncUpTarget(
            parent: ParentInfo(objectType: "Account", soupName: "accounts"),
            children: ChildrenInfo(
                objectType: "Contact", objectTypePlural: "Contacts", soupName: "contacts", parentIdFieldName: "AccountId"),
            relationshipType: .lookup)
        #expect(throws: SyncError.invalidTarget("No fields specified")) {
            try TreePlan(
                parent: Self.record(1, "local_1", Self.created, [:]), children: [], target: target, options: SyncOptions(),
                knownGone: [], apiVersion: "62.0", pass: 1)
        }
    }
}
