public import Foundation
import NIOSSL

extension LocalForceServer {
    /// What LocalForce serves HTTPS with: a certificate chain and its private key, in PEM.
    ///
    /// Give a certificate and key of your own (``init(certificateFile:keyFile:)``), or let
    /// LocalForce make a certificate authority and a certificate for the loopback names
    /// (``selfSigned(in:now:)``) that clients are then told to trust.
    public struct TLS: Sendable {
        /// The server's certificate first, then any intermediates.
        public let certificateChainPEM: String
        /// The certificate's private key.
        public let privateKeyPEM: String
        /// The authority that signed the certificate, when LocalForce made both: the file
        /// clients trust (`REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`).
        public let authorityPEM: String?

        /// A chain and key given as PEM text, checked now: both parse, and the key is the
        /// certificate's.
        ///
        /// - Throws: ``TLSError`` naming what is wrong.
        public init(certificateChainPEM: String, privateKeyPEM: String, authorityPEM: String? = nil) throws {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
            self.authorityPEM = authorityPEM
            _ = try configuration()
        }

        /// The chain and key read from PEM files (`msync serve --tls-cert FILE --tls-key FILE`).
        ///
        /// - Throws: ``TLSError`` when a file cannot be read or does not hold what it should.
        public init(certificateFile: URL, keyFile: URL) throws {
            try self.init(
                certificateChainPEM: try Self.read(certificateFile, "certificate"), privateKeyPEM: try Self.read(keyFile, "private key"))
        }

        static func read(_ file: URL, _ what: String) throws -> String {
            do {
                return try String(contentsOf: file, encoding: .utf8)
            } catch {
                throw TLSError("cannot read the \(what) file \(file.path): \(error.localizedDescription)")
            }
        }

        /// The server configuration NIOSSL runs with (TLS 1.2 and later).
        func configuration() throws -> TLSConfiguration {
            let chain: [NIOSSLCertificate]
            do {
                chain = try NIOSSLCertificate.fromPEMBytes(Array(certificateChainPEM.utf8))
            } catch {
                throw TLSError("the certificate is not a PEM certificate chain (\(error))")
            }
            guard !chain.isEmpty else { throw TLSError("the certificate file holds no certificate") }
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
            } catch {
                throw TLSError("the private key is not a PEM private key (\(error))")
            }
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            do {
                // Building a context checks that the key is the certificate's.
                _ = try NIOSSLContext(configuration: configuration)
            } catch {
                throw TLSError("the private key does not belong to the certificate, or one of them is unusable (\(error))")
            }
            return configuration
        }
    }

    /// Why a certificate or key cannot serve HTTPS.
    public struct TLSError: Error, CustomStringConvertible, Sendable {
        /// What is wrong, in a sentence.
        public let description: String

        init(_ description: String) { self.description = description }
    }
}
