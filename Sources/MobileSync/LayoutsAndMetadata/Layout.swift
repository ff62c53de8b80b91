public import FastJSON

/// A UI API record layout, as ``LayoutSyncManager`` returns it (the SDK's `Layout`): sections of
/// rows of items, and the whole response in ``rawData``.
public struct Layout: Sendable, Hashable {
    /// A section of the layout (the SDK's `SFLayoutSection`).
    public struct Section: Sendable, Hashable {
        /// Whether the section can collapse.
        public let collapsible: Bool
        /// Its number of columns.
        public let columns: Int?
        /// Its heading.
        public let heading: String?
        /// Its id.
        public let id: String?
        /// Its rows.
        public let layoutRows: [Row]
        /// Its number of rows.
        public let rows: Int?
        /// Whether the heading shows (`useHeading`; the SDK names it `userHeading`).
        public let useHeading: Bool
    }

    /// A row of a section (the SDK's `SFRow`).
    public struct Row: Sendable, Hashable {
        /// Its items.
        public let layoutItems: [Item]
    }

    /// An item of a row: a field, usually (the SDK's `SFItem`).
    public struct Item: Sendable, Hashable {
        /// Whether it can be set on a new record.
        public let editableForNew: Bool
        /// Whether it can be changed on an existing record.
        public let editableForUpdate: Bool
        /// Its label.
        public let label: String?
        /// Its components (`apiName`, `componentType`, `label`…), as the server sends them.
        public let layoutComponents: [JSONValue]
        /// The field holding the id of the record a lookup points at.
        public let lookupIdApiName: String?
        /// Whether a value is required.
        public let required: Bool
        /// Whether lists can sort by it.
        public let sortable: Bool
    }

    /// The layout's id.
    public let id: String?
    /// `Full` or `Compact`.
    public let layoutType: String
    /// `Create`, `Edit` or `View`.
    public let mode: String?
    /// Its sections.
    public let sections: [Section]
    /// The whole response, for what the model does not name.
    public let rawData: JSONValue

    /// A layout from the UI API's JSON (the SDK's `fromJSON`). Missing or mistyped members read
    /// as absent, false or empty.
    public init(json: JSONValue) {
        rawData = json
        id = json["id"]?.stringValue
        layoutType = json["layoutType"]?.stringValue ?? ""
        mode = json["mode"]?.stringValue
        sections = (json["sections"]?.arrayValue ?? []).map { section in
            Section(
                collapsible: section["collapsible"]?.boolValue ?? false, columns: section["columns"]?.int64Value.map { Int(clamping: $0) },
                heading: section["heading"]?.stringValue, id: section["id"]?.stringValue,
                layoutRows: (section["layoutRows"]?.arrayValue ?? []).map { row in
                    Row(
                        layoutItems: (row["layoutItems"]?.arrayValue ?? []).map { item in
                            Item(
                                editableForNew: item["editableForNew"]?.boolValue ?? false,
                                editableForUpdate: item["editableForUpdate"]?.boolValue ?? false, label: item["label"]?.stringValue,
                                layoutComponents: item["layoutComponents"]?.arrayValue ?? [],
                                lookupIdApiName: item["lookupIdApiName"]?.stringValue, required: item["required"]?.boolValue ?? false,
                                sortable: item["sortable"]?.boolValue ?? false)
                        })
                }, rows: section["rows"]?.int64Value.map { Int(clamping: $0) }, useHeading: section["useHeading"]?.boolValue ?? false)
        }
    }
}
