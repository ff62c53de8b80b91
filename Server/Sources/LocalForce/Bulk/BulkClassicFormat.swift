import FastJSON

/// How a Bulk API 1.0 answer (an info or an error) is written, as Salesforce decides it: the
/// request's `Content-Type` when it names JSON or XML; otherwise JSON for a job whose
/// `contentType` is JSON and XML for the rest (CSV and XML jobs, no job known). A batch's
/// results are in its job's content type whatever the header.
enum BulkClassicFormat {
    case json
    case xml

    /// The JSON content type Bulk API 1.0 answers with (without a charset, as Salesforce
    /// writes it and as clients such as salesforce-bulk compare it).
    static let jsonContentType = "application/json"

    /// The format for a request, before its job is known.
    init(request: APIRequest) {
        self = Self(header: request) ?? .xml
    }

    /// The format for a request on a job.
    init(job: BulkJob, request: APIRequest) {
        self = Self(header: request) ?? (job.contentType == "JSON" ? .json : .xml)
    }

    private init?(header request: APIRequest) {
        guard let type = request.headers["content-type"]?.lowercased() else { return nil }
        if type.contains("json") {
            self = .json
        } else if type.contains("xml") {
            self = .xml
        } else {
            return nil
        }
    }

    /// Whether a request's body is XML: its `Content-Type` says so, or it starts with `<`.
    static func isXML(_ request: APIRequest) -> Bool {
        if let type = request.headers["content-type"]?.lowercased(), type.contains("xml") { return true }
        return request.body.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "<")
    }

    private func document(_ root: String, _ value: JSONValue, order: [String], status: Int) -> APIResponse {
        switch self {
        case .json: .json(value, status: status, headers: ["Content-Type": Self.jsonContentType])
        case .xml:
            APIResponse(
                status: status, headers: ["Content-Type": BulkXMLWriter.contentType],
                body: BulkXMLWriter.document(root, value, order: order))
        }
    }

    /// A job's info.
    func jobInfo(_ info: JSONValue, status: Int = 200) -> APIResponse {
        document("jobInfo", info, order: BulkXMLWriter.jobInfoOrder, status: status)
    }

    /// A batch's info.
    func batchInfo(_ info: JSONValue, status: Int = 200) -> APIResponse {
        document("batchInfo", info, order: BulkXMLWriter.batchInfoOrder, status: status)
    }

    /// A job's batches' infos.
    func batchInfoList(_ infos: [JSONValue]) -> APIResponse {
        switch self {
        case .json: .json(["batchInfo": .array(infos)], headers: ["Content-Type": Self.jsonContentType])
        case .xml:
            APIResponse(status: 200, headers: ["Content-Type": BulkXMLWriter.contentType], body: BulkXMLWriter.batchInfoList(infos))
        }
    }

    /// An error: `{"exceptionCode", "exceptionMessage"}` or `<error>`.
    func error(_ code: String, _ message: String, status: Int) -> APIResponse {
        switch self {
        case .json:
            .json(
                ["exceptionCode": .string(code), "exceptionMessage": .string(message)], status: status,
                headers: ["Content-Type": Self.jsonContentType])
        case .xml:
            APIResponse(
                status: status, headers: ["Content-Type": BulkXMLWriter.contentType],
                body: BulkXMLWriter.error(code: code, message: message))
        }
    }
}
