/// `GROUP BY a, b`, `GROUP BY ROLLUP(a, b)` or `GROUP BY CUBE(a, b)`.
public struct GroupBy: Sendable, Hashable {
    /// Plain grouping, or subtotals.
    public enum Kind: String, Sendable, Hashable {
        /// `GROUP BY a, b`.
        case plain = ""
        /// `GROUP BY ROLLUP(a, b)`: subtotals for each prefix of the items, and a grand total.
        case rollup = "ROLLUP"
        /// `GROUP BY CUBE(a, b)`: subtotals for every combination of the items.
        case cube = "CUBE"
    }

    /// How the items group.
    public var kind: Kind
    /// What the records are grouped by: fields or date functions of fields.
    public var items: [FieldExpression]

    /// A GROUP BY; see the properties.
    public init(kind: Kind = .plain, items: [FieldExpression]) {
        self.kind = kind
        self.items = items
    }
}

/// A `WITH` clause of a query.
public enum WithClause: Sendable, Hashable {
    /// `WITH SECURITY_ENFORCED`.
    case securityEnforced
    /// `WITH USER_MODE`.
    case userMode
    /// `WITH SYSTEM_MODE`.
    case systemMode
    /// `WITH DATA CATEGORY Group__c AT (a__c, b__c) AND Other__c BELOW c__c`.
    case dataCategory([DataCategoryFilter])
    /// `WITH RecordVisibilityContext (maxDescriptorPerRecord=100, supportsDomains=true)`: a
    /// name and its parameters.
    case parameters(String, [Parameter])
    /// `WITH UserId = '005…'`, `WITH PricebookId = '01s…'`: a name and a value.
    case equals(String, Literal)

    /// One `name=value` of a parameterised `WITH`.
    public struct Parameter: Sendable, Hashable {
        /// The parameter's name.
        public var name: String
        /// Its value.
        public var value: Literal

        /// A parameter; see the properties.
        public init(name: String, value: Literal) {
            self.name = name
            self.value = value
        }
    }
}

/// One filter of `WITH DATA CATEGORY`.
public struct DataCategoryFilter: Sendable, Hashable {
    /// How the categories select.
    public enum Selector: String, Sendable, Hashable, CaseIterable {
        /// The categories themselves.
        case at = "AT"
        /// The categories and their parents.
        case above = "ABOVE"
        /// The categories and their children.
        case below = "BELOW"
        /// The categories, their parents and their children.
        case aboveOrBelow = "ABOVE_OR_BELOW"
    }

    /// The data category group (`Geography__c`).
    public var group: String
    /// AT, ABOVE, BELOW or ABOVE_OR_BELOW.
    public var selector: Selector
    /// The categories (one, or a parenthesised list).
    public var categories: [String]

    /// A filter; see the properties.
    public init(group: String, selector: Selector, categories: [String]) {
        self.group = group
        self.selector = selector
        self.categories = categories
    }
}

/// `UPDATE TRACKING` or `UPDATE VIEWSTAT` (Knowledge articles).
public enum UpdateClause: String, Sendable, Hashable {
    /// `UPDATE TRACKING`: track the keywords searched.
    case tracking = "TRACKING"
    /// `UPDATE VIEWSTAT`: count the article as viewed.
    case viewStat = "VIEWSTAT"
}

/// A relationship aliased in `FROM` (`FROM Contact c, c.Account a`): fields written with the
/// alias (`a.Name`) read through the relationship (`Account.Name`).
public struct FromRelationship: Sendable, Hashable {
    /// The relationship path from the queried object (`Account`).
    public var path: FieldPath
    /// Its alias (`a`).
    public var alias: String

    /// A relationship alias; see the properties.
    public init(path: FieldPath, alias: String) {
        self.path = path
        self.alias = alias
    }
}
