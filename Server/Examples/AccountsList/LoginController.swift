// The app login of SalesforceREST's "Logging in" article. The Apple workflow builds it for the
// iOS Simulator.
#if canImport(UIKit) && (os(iOS) || os(visionOS))
    import AuthenticationServices
    import Foundation
    import SalesforceREST
    import UIKit

    /// A view controller that logs in through the system's browser sheet. Its conformance is
    /// `@preconcurrency`: the protocol's requirement is not main-actor isolated, a view
    /// controller's methods are, and Swift 6 refuses the plain conformance.
    final class LoginController: UIViewController, @preconcurrency ASWebAuthenticationPresentationContextProviding {
        let consumerKey = "key"
        let loginURL = URL(string: "https://login.salesforce.com")

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            view.window ?? ASPresentationAnchor()
        }

        func logIn() async throws {
            guard let loginURL else { return }
            // snippet.app
            let oauth = OAuthClient(loginURL: loginURL, clientId: consumerKey, redirectURI: "myapp://oauth/done")
            // self: a UIViewController that provides the sheet's anchor
            let credentials = try await oauth.logIn(presentingFrom: self)
            try KeychainCredentialStore().save(credentials, account: "default")
            // snippet.end
        }
    }
#endif
