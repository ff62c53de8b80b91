import Foundation
import SmartStore

#if canImport(Darwin)
    import Darwin
#endif

/// The machine and build a benchmark ran on, printed in every report line so that a number
/// is never read without them.
struct BenchMachine: Sendable {
    /// Cores the process may use.
    let cores: Int
    /// The CPU's model name, or "unknown".
    let cpu: String
    /// The operating system's name and version.
    let os: String

    static let current = BenchMachine(
        cores: ProcessInfo.processInfo.activeProcessorCount, cpu: cpuModel(),
        os: ProcessInfo.processInfo.operatingSystemVersionString)

    /// "release" or "debug": the configuration this executable was built in.
    static var buildConfiguration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    /// The machine as a JSON object, its members in a fixed order.
    var json: String {
        let members: [(String, JSONValue)] = [("cores", .int(Int64(cores))), ("cpu", .string(cpu)), ("os", .string(os))]
        return "{" + members.map { "\"\($0.0)\":\($0.1.jsonString)" }.joined(separator: ",") + "}"
    }

    private static func cpuModel() -> String {
        #if canImport(Darwin)
            var size = 0
            guard sysctlbyname("machdep.cpu.brand_string", nil, &size, nil, 0) == 0, size > 0 else { return "unknown" }
            var bytes = [CChar](repeating: 0, count: size)
            guard sysctlbyname("machdep.cpu.brand_string", &bytes, &size, nil, 0) == 0 else { return "unknown" }
            return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
            // Linux: the first "model name" line of /proc/cpuinfo.
            guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
            for line in text.split(separator: "\n") where line.hasPrefix("model name") {
                if let colon = line.firstIndex(of: ":") {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return "unknown"
        #endif
    }
}
