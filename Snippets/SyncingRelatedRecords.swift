// snippet.hide
// The example of MobileSync's "Syncing related records" article.
import MobileSync

func related(manager: SyncManager) async throws {
    // snippet.show
    let parent = ParentInfo(objectType: "Account", soupName: "accounts")
    let children = ChildrenInfo(objectType: "Contact", objectTypePlural: "Contacts", soupName: "contacts", parentIdFieldName: "AccountId")
    try await manager.syncDown(target: ParentChildrenSyncDownTarget(parent: parent, parentFieldlist: ["Name"], children: children,
                                                                    childrenFieldlist: ["LastName"], relationshipType: .lookup),
                               soupName: "accounts", name: "accountsWithContacts")
    try await manager.syncUp(target: ParentChildrenSyncUpTarget(parent: parent, children: children, relationshipType: .lookup,
                                                                createFieldlist: ["Name"], childrenCreateFieldlist: ["LastName"]),
                             soupName: "accounts")
    // snippet.hide
}
