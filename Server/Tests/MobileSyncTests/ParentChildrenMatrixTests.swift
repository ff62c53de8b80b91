import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Scenario 24: local {none, update, delete} × remote {none, update, delete} for the parent and
/// for a child — 81 trees, each with a second, untouched child — synced up with
/// LEAVE_IF_CHANGED, then with OVERWRITE, for both relationship types.
@Suite struct ParentChildrenMatrixTests {
    enum Change: String, CaseIterable, Sendable { case none, update, delete }

    struct Combination: CustomStringConvertible {
        var parentLocal: Change, parentRemote: Change, childLocal: Change, childRemote: Change
        var description: String { "parent \(parentLocal)/\(parentRemote) child \(childLocal)/\(childRemote)" }
        var isDirty: Bool { parentLocal != .none || childLocal != .none }
    }

    static let combinations: [Combination] = Change.allCases.flatMap { parentLocal in
        Change.allCases.flatMap { parentRemote in
            Change.allCases.flatMap { childLocal in
                Change.allCases.map { childRemote in
                    Combination(parentLocal: parentLocal, parentRemote: parentRemote, childLocal: childLocal, childRemote: childRemote)
                }
            }
        }
    }

    /// Objects and fields of one relationship type.
    struct Model {
        var parent: ParentInfo, children: ChildrenInfo, type: RelationshipType, parentName: String, childName: String
        static let lookup = Model(
            parent: ParentInfo(objectType: "Account", soupName: "parents"),
            children: ChildrenInfo(
                objectType: "Contact", objectTypePlural: "Contacts", soupName: "children", parentIdFieldName: "AccountId"),
            type: .lookup, parentName: "Name", childName: "LastName")
        static let masterDetail = Model(
            parent: ParentInfo(objectType: "Invoice__c", soupName: "parents"),
            children: ChildrenInfo(
                objectType: "Invoice_Line__c", objectTypePlural: "Invoice_Lines__r", soupName: "children",
                parentIdFieldName: "Invoice__c"),
            type: .masterDetail, parentName: "Name", childName: "Name")
        var up: ParentChildrenSyncUpTarget {
            ParentChildrenSyncUpTarget(
                parent: parent, children: children, relationshipType: type, createFieldlist: [parentName], updateFieldlist: [parentName],
                childrenCreateFieldlist: [childName], childrenUpdateFieldlist: [childName])
        }
        var down: ParentChildrenSyncDownTarget {
            ParentChildrenSyncDownTarget(
                parent: parent, parentFieldlist: [parentName], children: children, childrenFieldlist: [childName], relationshipType: type)
        }
    }

    /// The tree of combination `index` as built on the server: parent and two children ids.
    struct Tree { var parent: String, changed: String, untouched: String }

    @Test(arguments: ["lookup", "masterDetail"]) func matrix(_ kind: String) async throws {
        let model = kind == "lookup" ? Model.lookup : Model.masterDetail
        try await withHarness { harness in
            let store = harness.store
            let client = harness.client
            try store.registerSoup(
                "parents", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
            try store.registerSoup(
                "children",
                indexSpecs: [
                    IndexSpec("Id", .string), IndexSpec(model.children.parentIdFieldName, .string),
                    IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
                ])
            // 81 trees on the server, synced down.
            let parentIds = try await client.createRecords(
                Self.combinations.indices.map {
                    ["attributes": .object(["type": .string(model.parent.objectType)]), .init(model.parentName): .string("P\($0)")]
                }
            ).compactMap(\.id)
            var trees: [Tree] = []
            for start in stride(from: 0, to: parentIds.count, by: 100) {
                let slice = Array(parentIds[start..<min(parentIds.count, start + 100)])
                let ids = try await client.createRecords(
                    slice.enumerated().flatMap { offset, parent in
                        (0..<2).map {
                            [
                                "attributes": .object(["type": .string(model.children.objectType)]),
                                .init(model.childName): .string("C\(start + offset)-\($0)"),
                                .init(model.children.parentIdFieldName): .string(parent),
                            ] as JSONValue
                        }
                    }
                ).compactMap(\.id)
                for (offset, parent) in slice.enumerated() {
                    trees.append(Tree(parent: parent, changed: ids[offset * 2], untouched: ids[offset * 2 + 1]))
                }
            }
            #expect(try await harness.manager.syncDown(target: model.down, soupName: "parents", name: "down").status == .done)

            // Local changes, then remote ones (children first: a master-detail parent delete takes its children).
            func entryId(_ soup: String, _ id: String) throws -> Int64 {
                try store.lookupSoupEntryId(soup: soup, path: "Id", value: .string(id)) ?? -1
            }
            for (index, (combination, tree)) in zip(Self.combinations, trees).enumerated() {
                switch combination.parentLocal {
                case .update:
                    _ = try await store.updateLocally(
                        [model.parentName: .string("P\(index) local")], entryId: try entryId("parents", tree.parent), in: "parents")
                case .delete: _ = try await store.deleteLocally(entryId: try entryId("parents", tree.parent), in: "parents")
                case .none: break
                }
                switch combination.childLocal {
                case .update:
                    _ = try await store.updateLocally(
                        [model.childName: .string("C\(index) local")], entryId: try entryId("children", tree.changed), in: "children")
                case .delete: _ = try await store.deleteLocally(entryId: try entryId("children", tree.changed), in: "children")
                case .none: break
                }
            }
            for (index, (combination, tree)) in zip(Self.combinations, trees).enumerated() {
                switch combination.childRemote {
                case .update:
                    try await client.update(
                        model.children.objectType, id: tree.changed, fields: [model.childName: .string("C\(index) remote")])
                case .delete: try await client.delete(model.children.objectType, id: tree.changed)
                case .none: break
                }
                switch combination.parentRemote {
                case .update:
                    try await client.update(
                        model.parent.objectType, id: tree.parent, fields: [model.parentName: .string("P\(index) remote")])
                case .delete: try await client.delete(model.parent.objectType, id: tree.parent)
                case .none: break
                }
            }
            let dirtyBefore = try Self.dirty(store)

            // LEAVE_IF_CHANGED: a tree goes through only when no record it sends changed remotely (a
            // remote delete matched by a local delete excepted), nor a child its parent's local
            // delete would take along; otherwise it is left as it was, its records in conflict.
            let lic = try await harness.manager.syncUp(
                target: model.up, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "parents")
            #expect(lic.status == .done && lic.failedRecordCount == 0, "\(lic.error)")
            let dirtyAfterLIC = try Self.dirty(store)
            let errors = try Self.lastErrors(store)
            var held = 0
            for (index, (combination, tree)) in zip(Self.combinations, trees).enumerated() where combination.isDirty {
                // Remote state of each record: unchanged, updated, or missing (a master-detail parent delete takes its children).
                let cascaded = model.type == .masterDetail && combination.parentRemote == .delete
                let childrenGoWithParent = model.type == .masterDetail && combination.parentLocal == .delete
                func ok(remote: Change, local: Change, isChild: Bool) -> Bool {
                    remote == .none || (remote == .delete && (local == .delete || (isChild && childrenGoWithParent)))
                }
                let changedRemote: Change = cascaded ? .delete : combination.childRemote
                // Only records the tree sends count; a clean child counts when the parent's delete takes it.
                let parentBlocks =
                    combination.parentLocal != .none
                    && !ok(remote: combination.parentRemote, local: combination.parentLocal, isChild: false)
                let childBlocks =
                    combination.childLocal != .none
                    ? !ok(remote: changedRemote, local: combination.childLocal, isChild: true)
                    : childrenGoWithParent && changedRemote == .update
                let blocked = parentBlocks || childBlocks
                let ids = [tree.parent, tree.changed, tree.untouched]
                if blocked {
                    #expect(
                        ids.allSatisfy { dirtyBefore[$0] == dirtyAfterLIC[$0] },
                        "LIC \(model.type) #\(index) \(combination): left as it was")
                    // Never silent: each record held back says why, and is counted.
                    let dirtyIds = ids.filter { dirtyBefore[$0] == true }
                    // A clean child changed there, which the parent's delete would take along, is in conflict too.
                    held += dirtyIds.count + (combination.childLocal == .none && childBlocks ? 1 : 0)
                    #expect(
                        dirtyIds.allSatisfy { errors[$0]?.contains("SYNC_CONFLICT") == true },
                        "LIC \(model.type) #\(index) \(combination): held without a reason")
                } else {
                    #expect(
                        ids.allSatisfy { dirtyAfterLIC[$0] == nil || dirtyAfterLIC[$0] == false },
                        "LIC \(model.type) #\(index) \(combination): synced")
                }
            }

            #expect(lic.conflictCount == held, "LIC \(model.type): \(lic.conflictCount) counted, \(held) held")

            // OVERWRITE: everything goes through; what the server lost comes back.
            let overwrite = try await harness.manager.syncUp(target: model.up, soupName: "parents")
            #expect(overwrite.status == .done && overwrite.failedRecordCount == 0, "\(overwrite.error)")
            let stillDirty = try Self.dirty(store).filter(\.value).keys
            let dirtyTrees = trees.indices.filter { index in
                [trees[index].parent, trees[index].changed, trees[index].untouched].contains(where: stillDirty.contains)
            }
            #expect(
                stillDirty.isEmpty,
                "\(model.type): dirty after OVERWRITE: \(stillDirty.count) records, trees \(dirtyTrees.map { "#\($0) \(Self.combinations[$0])" })"
            )
            for (index, (combination, tree)) in zip(Self.combinations, trees).enumerated() where combination.isDirty {
                let label = "OVERWRITE \(model.type) #\(index) \(combination)"
                let localParent = try await store.query(
                    .smart("select {parents:_soup} from {parents} where {parents:Name} = ? or {parents:Name} = ?", pageSize: 2),
                    arguments: [.string("P\(index)"), .string("P\(index) local")]
                ).first?.arrayValue?.first
                if combination.parentLocal == .delete {
                    #expect(localParent == nil, "\(label): parent gone locally")
                    #expect(try await Self.exists(client, model.parent.objectType, tree.parent) == false, "\(label): parent gone remotely")
                    if model.type == .masterDetail {
                        await #expect(
                            try store.count(
                                .exact(soup: "children", path: model.children.parentIdFieldName, key: .string(tree.parent), pageSize: 5))
                                == 0, "\(label)")
                    }
                    continue
                }
                let parentId = try #require(localParent?["Id"]?.stringValue, "\(label): parent kept locally")
                if combination.parentLocal == .update {
                    let remote = try await client.retrieve(model.parent.objectType, id: parentId, fields: [model.parentName])
                    #expect(remote[model.parentName] == .string("P\(index) local"), "\(label): local parent values win")
                    #expect(
                        (parentId == tree.parent) == (combination.parentRemote != .delete),
                        "\(label): recreated with a new id only if deleted remotely")
                }
                switch combination.childLocal {
                case .delete:
                    #expect(
                        try await Self.exists(client, model.children.objectType, tree.changed) == false, "\(label): child deleted remotely")
                    #expect(try entryId("children", tree.changed) == -1, "\(label): child deleted locally")
                case .update:
                    let child = try await #require(
                        try store.query(
                            .smart("select {children:_soup} from {children} where {children:\(model.childName)} = ?", pageSize: 2),
                            arguments: [.string("C\(index) local")]
                        ).first?.arrayValue?.first, "\(label): child kept")
                    let childId = try #require(child["Id"]?.stringValue)
                    let remote = try await client.retrieve(
                        model.children.objectType, id: childId, fields: [model.childName, model.children.parentIdFieldName])
                    #expect(remote[model.childName] == .string("C\(index) local"), "\(label): local child values win")
                    if model.type == .masterDetail || parentId != tree.parent {
                        #expect(
                            child[model.children.parentIdFieldName] == .string(parentId)
                                && remote[model.children.parentIdFieldName] == .string(parentId),
                            "\(label): child under its (possibly new) parent")
                    }
                case .none:
                    break
                }
            }
        }
    }

    /// `__local__` of every entry of both soups by Id.
    static func dirty(_ store: SmartStore) throws -> [String: Bool] {
        var result: [String: Bool] = [:]
        for soup in ["parents", "children"] {
            for entry in try store.query(.all(soup: soup, pageSize: 100_000)) {
                if let id = entry["Id"]?.stringValue { result[id] = entry["__local__"] == true }
            }
        }
        return result
    }

    /// `__last_error__` of every record, by Id.
    static func lastErrors(_ store: SmartStore) throws -> [String: String] {
        var result: [String: String] = [:]
        for soup in ["parents", "children"] {
            for entry in try store.query(.all(soup: soup, pageSize: 100_000)) {
                if let id = entry["Id"]?.stringValue { result[id] = entry["__last_error__"]?.stringValue }
            }
        }
        return result
    }

    static func exists(_ client: RestClient, _ type: String, _ id: String) async throws -> Bool {
        try await client.query("SELECT COUNT() FROM \(type) WHERE Id = '\(id)'").totalSize > 0
    }
}
