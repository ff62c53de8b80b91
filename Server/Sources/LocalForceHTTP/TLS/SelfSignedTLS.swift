import Crypto
public import Foundation
import SwiftASN1
import X509

extension LocalForceServer.TLS {
    /// The files ``selfSigned(in:now:)`` keeps: the authority clients trust, the server's
    /// certificate and its key.
    public static let authorityFileName = "ca.pem"
    /// The server certificate's file name (see ``authorityFileName``).
    public static let certificateFileName = "cert.pem"
    /// The server key's file name, readable by its owner only (see ``authorityFileName``).
    public static let keyFileName = "key.pem"

    /// A fresh certificate authority and, signed by it, a certificate for `localhost`,
    /// `127.0.0.1` and `::1` (P-256 keys, valid for a year from an hour ago).
    ///
    /// The authority's private key is dropped once the certificate is signed: trusting the
    /// authority trusts this one certificate, and no other can ever be made under it.
    public static func selfSigned(now: Date = Date()) throws -> Self {
        let authorityKey = P256.Signing.PrivateKey()
        let authorityName = try DistinguishedName {
            OrganizationName("LocalForce")
            CommonName("LocalForce local authority \(UInt32.random(in: 1...UInt32.max))")
        }
        let authorityPublicKey = Certificate.PublicKey(authorityKey.publicKey)
        let authorityIdentifier = SubjectKeyIdentifier(hash: authorityPublicKey)
        let notBefore = now.addingTimeInterval(-3600)
        let notAfter = now.addingTimeInterval(365 * 86_400)
        let authority = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: authorityPublicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: authorityName, subject: authorityName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                authorityIdentifier
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey))

        let serverKey = P256.Signing.PrivateKey()
        let serverPublicKey = Certificate.PublicKey(serverKey.publicKey)
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: serverPublicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: authorityName,
            subject: try DistinguishedName {
                OrganizationName("LocalForce")
                CommonName("localhost")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))),
                ])
                SubjectKeyIdentifier(hash: serverPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: authorityIdentifier.keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey))
        return try Self(
            certificateChainPEM: try server.serializeAsPEM().pemString + "\n",
            privateKeyPEM: serverKey.pemRepresentation + "\n",
            authorityPEM: try authority.serializeAsPEM().pemString + "\n")
    }

    /// The self-signed set kept in `directory` (``authorityFileName``, ``certificateFileName``,
    /// ``keyFileName``): the one already there while it is valid for another day, so that
    /// clients trust it across restarts, or a fresh one (``selfSigned(now:)``) written there,
    /// the key readable by its owner only.
    ///
    /// - Returns: the set, and whether it was just made.
    /// - Throws: ``LocalForceServer/TLSError`` when the directory cannot be made or written,
    ///   or holds files that are not a usable set.
    public static func selfSigned(in directory: URL, now: Date = Date()) throws -> (tls: Self, created: Bool) {
        let files = FileManager.default
        let authorityFile = directory.appendingPathComponent(authorityFileName)
        let certificateFile = directory.appendingPathComponent(certificateFileName)
        let keyFile = directory.appendingPathComponent(keyFileName)
        let present = [authorityFile, certificateFile, keyFile].filter { files.fileExists(atPath: $0.path) }
        if present.count == 3 {
            let kept = try Self(
                certificateChainPEM: try read(certificateFile, "certificate"), privateKeyPEM: try read(keyFile, "private key"),
                authorityPEM: try read(authorityFile, "authority"))
            let leaf: Certificate
            do {
                leaf = try Certificate(pemEncoded: kept.certificateChainPEM)
            } catch {
                throw LocalForceServer.TLSError("\(certificateFile.path) is not a certificate LocalForce can read (\(error))")
            }
            if leaf.notValidAfter > now.addingTimeInterval(86_400) { return (kept, false) }
        } else if !present.isEmpty {
            throw LocalForceServer.TLSError(
                "\(directory.path) holds \(present.map(\.lastPathComponent).joined(separator: ", ")) but not all of \(authorityFileName), \(certificateFileName) and \(keyFileName): remove them or choose another directory"
            )
        }
        let fresh = try selfSigned(now: now)
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            // The key is written readable by its owner only, before it holds anything.
            for (file, text, mode) in [
                (keyFile, fresh.privateKeyPEM, 0o600), (certificateFile, fresh.certificateChainPEM, 0o644),
                (authorityFile, fresh.authorityPEM ?? "", 0o644),
            ] {
                try? files.removeItem(at: file)
                guard files.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: mode]) else {
                    throw LocalForceServer.TLSError("cannot create \(file.path)")
                }
                try Data(text.utf8).write(to: file)
            }
        } catch let error as LocalForceServer.TLSError {
            throw error
        } catch {
            throw LocalForceServer.TLSError("cannot write the certificates to \(directory.path): \(error.localizedDescription)")
        }
        return (fresh, true)
    }
}
