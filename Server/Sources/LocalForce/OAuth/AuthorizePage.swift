/// The HTML of the authorize endpoint: the login form, the consent page and the error page.
/// Every value from the request is escaped; the pages need no script and load nothing.
enum AuthorizePage {
    /// Headers of every page: never cached, never framed, nothing loaded from elsewhere.
    static let headers = [
        "Content-Type": "text/html;charset=UTF-8", "Cache-Control": "no-store", "Pragma": "no-cache", "X-Frame-Options": "DENY",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        "Referrer-Policy": "no-referrer",
    ]

    /// The login form; `fields` carry the authorization request to the POST.
    static func login(appName: String, fields: [(String, String)], username: String = "", error: String? = nil) -> String {
        let message = error.map { "<p class=\"error\" id=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return page(
            title: "Log In | LocalForce",
            body: """
                <h1>Log in to LocalForce</h1>
                <p class="app">to continue to <strong>\(escape(appName))</strong></p>
                \(message)
                <form method="post" action="/services/oauth2/authorize" id="login_form">
                \(hidden(fields))
                <label for="username">Username</label>
                <input type="text" id="username" name="username" value="\(escape(username))" autocomplete="username" required autofocus>
                <label for="password">Password</label>
                <input type="password" id="password" name="password" autocomplete="current-password" required>
                <button type="submit" id="Login" name="Login">Log In</button>
                </form>
                """)
    }

    /// The consent page: allow or deny the app access as the logged-in user.
    static func consent(appName: String, username: String, scopes: [String], ticket: String) -> String {
        let items = scopes.map { "<li>\(escape(describe(scope: $0)))</li>" }.joined()
        return page(
            title: "Allow Access? | LocalForce",
            body: """
                <h1>Allow Access?</h1>
                <p><strong>\(escape(appName))</strong> is asking to act as <strong>\(escape(username))</strong>:</p>
                <ul>\(items)</ul>
                <form method="post" action="/services/oauth2/authorize" id="consent_form">
                \(hidden([("ticket", ticket)]))
                <button type="submit" id="oaapprove" name="decision" value="allow">Allow</button>
                <button type="submit" id="oadeny" name="decision" value="deny" class="secondary">Deny</button>
                </form>
                """)
    }

    /// An error that cannot go back to the app (its redirect URI is unknown or not trusted).
    static func error(_ code: String, _ description: String) -> String {
        page(
            title: "OAuth Error | LocalForce",
            body: """
                <h1>OAuth Error</h1>
                <p class="error" id="error" role="alert">We can't authorize you because of an OAuth error.</p>
                <p><code>error=\(escape(code))</code></p>
                <p><code>error_description=\(escape(description))</code></p>
                """)
    }

    private static func describe(scope: String) -> String {
        switch scope {
        case "api": "Manage user data via APIs (api)"
        case "refresh_token", "offline_access": "Perform requests at any time (\(scope))"
        case "id", "openid", "profile", "email": "Access the identity URL service (\(scope))"
        case "full": "Full access (full)"
        default: scope
        }
    }

    private static func hidden(_ fields: [(String, String)]) -> String {
        fields.map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }.joined(separator: "\n")
    }

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
        body { font-family: system-ui, sans-serif; background: #f3f3f3; margin: 0; }
        main { max-width: 24rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 0.5rem;
               box-shadow: 0 1px 3px rgba(0,0,0,0.2); }
        h1 { font-size: 1.4rem; margin-top: 0; }
        label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
        input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: 0.5rem; font-size: 1rem; }
        button { margin-top: 1.5rem; padding: 0.6rem 1.2rem; font-size: 1rem; background: #0176d3; color: #fff;
                 border: none; border-radius: 0.25rem; cursor: pointer; }
        button.secondary { background: #fff; color: #0176d3; border: 1px solid #0176d3; margin-left: 0.5rem; }
        .error { color: #ba0517; }
        .app { color: #555; }
        </style>
        </head>
        <body><main>
        \(body)
        </main></body>
        </html>
        """
    }

    /// Text safe inside an element or a double-quoted attribute.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
