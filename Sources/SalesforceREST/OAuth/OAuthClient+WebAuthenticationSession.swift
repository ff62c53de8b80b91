#if canImport(AuthenticationServices) && (os(iOS) || os(macOS) || os(visionOS))
    public import AuthenticationServices
    import Foundation

    extension OAuthClient {
        /// Logs in through `ASWebAuthenticationSession`: the authorize page in the system's
        /// browser sheet, the callback to the client's custom-scheme ``redirectURI`` (for example
        /// `myapp://oauth/done`, registered as the connected app's callback URL), then the code
        /// traded for tokens (the web-server flow with PKCE).
        ///
        /// - Parameters:
        ///   - context: the window the sheet is shown over.
        ///   - scopes: the OAuth scopes asked for.
        ///   - prefersEphemeralSession: no cookies shared with Safari (every login asks for the
        ///     password).
        /// - Throws: `ASWebAuthenticationSessionError.canceledLogin` when the user cancels;
        ///   ``RestError`` as ``AuthorizationRequest/code(fromCallbackURL:)`` and
        ///   ``exchange(code:for:)`` throw.
        @MainActor
        public func logIn(
            presentingFrom context: any ASWebAuthenticationPresentationContextProviding, scopes: [String] = ["api", "refresh_token"],
            prefersEphemeralSession: Bool = false
        ) async throws -> OAuthCredentials {
            let request = try authorizationRequest(scopes: scopes)
            guard let scheme = URLComponents(string: request.redirectURI)?.scheme, !scheme.isEmpty else {
                throw RestError.invalidResponse("the redirect URI \(request.redirectURI) has no scheme for the browser to call back")
            }
            let running = RunningSession()
            let callback: URL = try await withCheckedThrowingContinuation { continuation in
                // Sendable, so not main-actor isolated: the system may call it from any thread.
                let finish: @Sendable (URL?, (any Error)?) -> Void = { url, error in
                    if let url {
                        continuation.resume(returning: url)
                    } else {
                        continuation.resume(throwing: error ?? RestError.oauth(error: "access_denied", description: "the login ended"))
                    }
                }
                let session: ASWebAuthenticationSession
                if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
                    session = ASWebAuthenticationSession(url: request.url, callback: .customScheme(scheme), completionHandler: finish)
                } else {
                    session = ASWebAuthenticationSession(url: request.url, callbackURLScheme: scheme, completionHandler: finish)
                }
                session.presentationContextProvider = context
                session.prefersEphemeralWebBrowserSession = prefersEphemeralSession
                running.session = session
                if !session.start() {
                    running.session = nil
                    continuation.resume(throwing: RestError.invalidResponse("the login sheet could not be shown"))
                }
            }
            withExtendedLifetime(running) {} // the session lives until its callback came
            return try await exchange(code: try request.code(fromCallbackURL: callback), for: request)
        }
    }

    /// Keeps the session alive while the sheet is shown (the system does not retain it).
    @MainActor
    private final class RunningSession {
        var session: ASWebAuthenticationSession?
    }
#endif
