import FastJSON

/// The XML documents the Bulk API 1.0 answers with (namespace
/// `http://www.force.com/2009/06/asyncapi/dataload`): job and batch infos, save results,
/// query results and errors, written from the JSON forms LocalForce keeps.
enum BulkXMLWriter {
    static let namespace = "http://www.force.com/2009/06/asyncapi/dataload"
    static let contentType = "application/xml"
    private static let declaration = #"<?xml version="1.0" encoding="UTF-8"?>"#

    /// A jobInfo's elements in the order Salesforce writes them.
    static let jobInfoOrder = [
        "id", "operation", "object", "createdById", "createdDate", "systemModstamp", "state", "externalIdFieldName",
        "concurrencyMode", "contentType", "numberBatchesQueued", "numberBatchesInProgress", "numberBatchesCompleted",
        "numberBatchesFailed", "numberBatchesTotal", "numberRecordsProcessed", "numberRetries", "apiVersion",
        "numberRecordsFailed", "totalProcessingTime", "apiActiveProcessingTime", "apexProcessingTime",
    ]

    /// A batchInfo's elements in the order Salesforce writes them.
    static let batchInfoOrder = [
        "id", "jobId", "state", "stateMessage", "createdDate", "systemModstamp", "numberRecordsProcessed", "numberRecordsFailed",
        "totalProcessingTime", "apiActiveProcessingTime", "apexProcessingTime",
    ]

    /// Text as XML character data: markup escaped; characters XML 1.0 cannot hold (controls
    /// other than tab and line ends) replaced by U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A JSON scalar as element text (nil for null, an object or an array).
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): String(number)
        default: nil
        }
    }

    /// `<root xmlns=…>` with the object's members as elements in `order` (null members left out).
    static func document(_ root: String, _ value: JSONValue, order: [String]) -> [UInt8] {
        Array((declaration + "<\(root) xmlns=\"\(namespace)\">" + members(value, order: order) + "</\(root)>").utf8)
    }

    private static func members(_ value: JSONValue, order: [String]) -> String {
        order.compactMap { name in value[name].flatMap(text).map { "<\(name)>\(escape($0))</\(name)>" } }.joined()
    }

    /// `<batchInfoList>` of batch infos.
    static func batchInfoList(_ infos: [JSONValue]) -> [UInt8] {
        let items = infos.map { "<batchInfo>" + members($0, order: batchInfoOrder) + "</batchInfo>" }.joined()
        return Array((declaration + "<batchInfoList xmlns=\"\(namespace)\">" + items + "</batchInfoList>").utf8)
    }

    /// A query batch's `<result-list>` of result set ids.
    static func resultList(_ ids: [String]) -> [UInt8] {
        let items = ids.map { "<result>\(escape($0))</result>" }.joined()
        return Array((declaration + "<result-list xmlns=\"\(namespace)\">" + items + "</result-list>").utf8)
    }

    /// `<error>` with the exception's code and message.
    static func error(code: String, message: String) -> [UInt8] {
        document(
            "error", ["exceptionCode": .string(code), "exceptionMessage": .string(message)], order: ["exceptionCode", "exceptionMessage"])
    }

    /// A DML batch's `<results>` from its JSON save results.
    static func saveResults(_ results: [JSONValue]) -> String {
        var out = declaration + "<results xmlns=\"\(namespace)\">"
        for result in results {
            out += "<result>"
            if let id = result["id"].flatMap(text) { out += "<id>\(escape(id))</id>" }
            for error in result["errors"]?.arrayValue ?? [] {
                out += "<errors>"
                for field in error["fields"]?.arrayValue ?? [] { out += "<fields>\(escape(field.stringValue ?? ""))</fields>" }
                out += "<message>\(escape(error["message"]?.stringValue ?? ""))</message>"
                out += "<statusCode>\(escape(error["statusCode"]?.stringValue ?? ""))</statusCode></errors>"
            }
            out += "<success>\(result["success"] == true)</success><created>\(result["created"] == true)</created></result>"
        }
        return out + "</results>"
    }

    /// A query batch's result set: `<queryResult>` of `<records xsi:type="sObject">`, each with
    /// its `<type>`, its fields in the SELECT list's order (`paths`), nulls as `xsi:nil`, parents
    /// as nested sObjects.
    static func queryResult(_ records: [JSONValue], paths: [[String]]) -> String {
        var out =
            declaration + "<queryResult xmlns=\"\(namespace)\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">"
        let paths = paths.filter { $0.count <= 8 }
        for record in records { out += sObject("records", record, paths: paths) }
        return out + "</queryResult>"
    }

    /// One sObject; `paths` are the selected fields below it (a parent's are at most a few
    /// levels deep: SOQL allows five).
    private static func sObject(_ name: String, _ record: JSONValue, paths: [[String]]) -> String {
        guard case .object(let members) = record else { return "<\(name) xsi:nil=\"true\"/>" }
        var out = "<\(name) xsi:type=\"sObject\"><type>\(escape(record["attributes"]?["type"]?.stringValue ?? ""))</type>"
        var written: Set<String> = []
        for path in paths {
            guard let first = path.first, written.insert(first.lowercased()).inserted,
                let (field, value) = members.first(where: { $0.key.lowercased() == first.lowercased() })
            else { continue }
            switch value {
            case .null: out += "<\(field) xsi:nil=\"true\"/>"
            case .object:
                let below = paths.filter { $0.count > 1 && $0[0].lowercased() == first.lowercased() }.map { Array($0.dropFirst()) }
                out += sObject(field, value, paths: below)
            case .array: out += "<\(field)>\(escape(value.jsonString))</\(field)>"
            default: out += "<\(field)>\(escape(text(value) ?? ""))</\(field)>"
            }
        }
        return out + "</\(name)>"
    }
}
