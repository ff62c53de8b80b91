import Crypto
import CryptoExtras
import FastJSON
import SalesforceWire

/// A JWT bearer assertion (RFC 7523), as the `urn:ietf:params:oauth:grant-type:jwt-bearer`
/// grant sends it: RS256-signed, claims `iss` (the client id), `sub` (the username), `aud` and
/// `exp` (seconds; a number or, as some clients send it, a string of digits).
struct JWTAssertion {
    var issuer: String
    var subject: String
    var audiences: [String]
    var expiresAt: Int64
    /// `header.payload`, the bytes the signature covers.
    private var signedPart: [UInt8]
    private var signature: [UInt8]

    /// The longest assertion read (a real one is about 1 KB).
    static let maximumLength = 16_384

    /// Parses the compact serialization; `nil` when it is not a well-formed RS256 JWT.
    init?(_ text: String) {
        guard text.utf8.count <= Self.maximumLength else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            case .object(let header)? = try? JSONValue(parsing: headerBytes), header["alg"]?.stringValue == "RS256",
            case .object(let claims)? = try? JSONValue(parsing: payloadBytes),
            let issuer = claims["iss"]?.stringValue, let subject = claims["sub"]?.stringValue,
            let expiresAt = Self.seconds(claims["exp"])
        else { return nil }
        switch claims["aud"] {
        case .string(let audience)?: audiences = [audience]
        case .array(let list)?: audiences = list.compactMap(\.stringValue)
        default: return nil
        }
        self.issuer = issuer
        self.subject = subject
        self.expiresAt = expiresAt
        self.signature = signature
        self.signedPart = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    /// Whether `key` signed the assertion (RSASSA-PKCS1-v1_5 over SHA-256).
    func isSigned(by key: _RSA.Signing.PublicKey) -> Bool {
        key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signedPart), padding: .insecurePKCS1v1_5)
    }

    /// `exp` as whole seconds: an integer number, or a string of 1 to 12 digits (no sign).
    private static func seconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .string(let text)?:
            guard (1...12).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(text)
        case .int(let number)?:
            return (0..<1_000_000_000_000).contains(number) ? number : nil
        case .double(let number)?:
            guard number.isFinite, number >= 0, number < 1e12 else { return nil }
            return Int64(exactly: number.rounded(.down))
        default:
            return nil
        }
    }
}
