/// A field name read for what it means: `accessToken`, `access-token`, `ACCESS_TOKEN`, `AccessToken` and
/// `user[access_token]` are one name, and a name made of a credential word (`X-Tenant-Key`, `client_assertion`) is
/// a secret even when no list spells it.
///
/// Used by ``Redaction`` for headers, query items, form fields and JSON keys, and by the redirect rules to decide
/// which headers stay with their origin.
enum SecretName {
    /// The name's words, lower-cased: split at `_`, `-`, `.`, spaces, brackets and camel-case humps
    /// (`userAPIKey` → `user`, `api`, `key`).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current: [Character] = []
        let characters = Array(name)
        func flush() {
            if !current.isEmpty { words.append(String(current).lowercased()) }
            current.removeAll(keepingCapacity: true)
        }
        for (index, character) in characters.enumerated() {
            guard character.isLetter || character.isNumber else {
                flush()
                continue
            }
            if character.isUppercase, let previous = current.last {
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                // `accessToken` splits before `T`; `APIKey` splits before the `K` that starts `Key`.
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { flush() }
            }
            current.append(character)
        }
        flush()
        return words
    }

    /// The normal form a list entry and a name are compared in: the words joined by `_` (`X-API-Key` → `x_api_key`).
    static func normalized(_ name: String) -> String { words(name).joined(separator: "_") }

    /// Whether the name says it holds a credential: a password, token, secret, API or private key, cookie,
    /// signature, assertion, session id, or one of the OAuth 2.0 / OpenID Connect secret parameters.
    static func isSecret(_ name: String) -> Bool { isSecret(words: words(name)) }

    /// ``isSecret(_:)`` for a name already split into ``words(_:)``.
    /// - Parameters:
    ///   - words: The name's words.
    ///   - asAFormField: Whether the name is a query item's or a form field's: OAuth's `code` is a secret where OAuth
    ///     puts it (a redirect URI's query or fragment, a token request's form body), not as a JSON key or a header,
    ///     where `"code": "invalid_title"` is the one field of an error a developer needs.
    static func isSecret(words: [String], asAFormField: Bool = false) -> Bool {
        guard !words.isEmpty else { return false }
        let whole = words.joined(separator: "_")
        if wholeNames.contains(whole) || (asAFormField && formNames.contains(whole)) { return true }
        for (index, word) in words.enumerated() {
            if secretWords.contains(word) { return true }
            // One word made of several (`accesstoken`, `userpassword`): the credential word ends it.
            if secretSuffixes.contains(where: { word.count > $0.count && word.hasSuffix($0) }) { return true }
            if index > 0, let qualifier = qualified[word], qualifier.contains(words[index - 1]) { return true }
        }
        return false
    }

    /// Words that make any name a secret.
    private static let secretWords: Set<String> = [
        "password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "authorization", "cookie",
        "credential", "credentials", "signature", "assertion", "otp", "sessionid", "csrf", "xsrf", "jwt", "bearer",
        "verifier", "privatekey", "key",
    ]
    /// Endings of one-word names that make them a secret (`accesstoken`; not `maxtokens`).
    private static let secretSuffixes = ["token", "password", "secret", "apikey"]
    /// Words that are a secret only after one of these words (`session_id`, `device_code`; not `status_code`).
    private static let qualified: [String: Set<String>] = [
        "id": ["session", "sess"],
        "code": ["auth", "authorization", "device", "user", "verification", "recovery", "backup"],
    ]
    /// Whole names that are secrets alone (`sig`, `pin`), in normal form.
    private static let wholeNames: Set<String> = ["sig", "auth", "x_auth", "pin", "ssn", "sid"]
    /// Whole names that are secrets alone in a query or a form (OAuth's `code`), in normal form.
    private static let formNames: Set<String> = ["code"]
}
