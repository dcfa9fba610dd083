import Foundation
import Testing

@testable import Konex

/// Redaction recognises a secret by what its name means, in every spelling a careless app or a hostile server uses.
struct RedactionByMeaningTests {
    @Test(arguments: [
        ("accessToken", ["access", "token"]), ("access-token", ["access", "token"]),
        ("AccessToken", ["access", "token"]),
        ("ACCESS_TOKEN", ["access", "token"]), ("userAPIKey", ["user", "api", "key"]),
        ("X-API-Key", ["x", "api", "key"]),
        ("user[password]", ["user", "password"]), ("a.b c", ["a", "b", "c"]), ("oauth2Token", ["oauth2", "token"]),
        ("", []), ("---", []), ("ÉtéToken", ["été", "token"]),
    ])
    func aNameSplitsIntoWords(name: String, words: [String]) {
        #expect(SecretName.words(name) == words)
    }

    @Test(arguments: [
        "accessToken", "access-token", "AccessToken", "api_key", "apiKey", "user[password]", "client_secret",
        "code_verifier", "client_assertion", "id_token", "refresh_token", "id_token_hint", "subject_token",
        "device_code", "X-Tenant-Key", "sessionId", "session_id",
        "X-CSRF-Token", "accesstoken", "userpassword", "Ocp-Apim-Subscription-Key", "jwt", "private_key",
    ])
    func aCredentialIsRecognisedInAnySpelling(name: String) {
        #expect(SecretName.isSecret(name), "\(name)")
        #expect(Redaction.default.isListedField(name), "\(name)")
    }

    @Test(arguments: [
        "max_tokens", "prompt_tokens", "status_code", "error_code", "country_code", "author", "id", "user_id",
        "Content-Type", "Accept", "X-Request-Id", "tokens", "monkey", "keyboard", "passage",
    ])
    func anOrdinaryNameIsLeftAlone(name: String) {
        #expect(!SecretName.isSecret(name), "\(name)")
        #expect(Redaction.default.value(ofHeader: name, "visible") == "visible")
    }

    @Test func aListedNameMatchesInAnySpelling() {
        var redaction = Redaction.default
        redaction.recognisesSecretNames = false
        redaction.jsonFields.insert("ssn")
        redaction.headers.insert("x-tenant-signature")
        #expect(redaction.isListedField("SSN"))
        #expect(redaction.isListedField("user[ssn]"))
        #expect(redaction.isListedField("accessToken"))  // `access_token` is listed
        #expect(redaction.isSecret(header: "X_Tenant_Signature"))
        #expect(redaction.isSecret(header: "xTenantSignature"))
        #expect(!redaction.isSecret(header: "X-Tenant-Key"))  // by meaning only, which is off here
    }

    @Test func everySinkShapeRedactsTheNewNames() {
        let redaction = Redaction.default
        let json = redaction.redactJSON(#"{"accessToken":"a1","user":{"clientSecret":"c1","name":"ada"}}"#)
        #expect(!json.contains("a1") && !json.contains("c1") && json.contains("ada"))
        let form = redaction.body(
            "user%5Bpassword%5D=p1&code=c2&code_verifier=v1&grant_type=authorization_code",
            contentType: "application/x-www-form-urlencoded")
        #expect(!form.contains("p1") && !form.contains("c2") && !form.contains("v1"))
        #expect(form.contains("grant_type=authorization_code"))
        let url = redaction.url("https://api.test/cb?state=s1&apiKey=k1")
        #expect(url.contains("state=s1") && !url.contains("k1"))
    }

    @Test func aFragmentAndAUserNameCarryNoToken() {
        let redaction = Redaction.default
        let implicit = redaction.url("https://app.test/cb#access_token=frag-secret&token_type=bearer&state=xyz")
        #expect(!implicit.contains("frag-secret"))
        #expect(implicit.contains("state=xyz"))
        let userOnly = redaction.url("https://ghp_usersecret@github.com/org/repo.git")
        #expect(!userOnly.contains("ghp_usersecret"))
        #expect(userOnly.contains("github.com/org/repo.git"))
        let text = redaction.text("GET https://app.test/cb#id_token=t1 failed")
        #expect(!text.contains("t1"))
    }

    @Test(arguments: [
        "https://ghp_usersecret@github.com/org/repo.git",
        "https://ghp_usersecret:x-oauth-basic@github.com/org/repo.git",
        "https://oauth2:ghp_usersecret@gitlab.test/org/repo.git", "https://ghp_usersecret:@github.com/x",
        "https://ghp%5Fusersecret@github.com/x", "/relative?x=1", "https://ghp_usersecret:ghp_usersecret@h.test/",
    ])
    func neitherHalfOfAURLsUserInfoIsShown(url: String) {
        let redaction = Redaction.default
        for shown in [redaction.url(url), redaction.text("GET \(url) failed")] {
            #expect(!shown.contains("ghp_usersecret") && !shown.contains("ghp%5Fusersecret"), "\(shown)")
        }
        let error = KonexError(stage: .transport, message: "boom", method: .get, url: URL(string: url))
        #expect(!error.description.contains("usersecret"), "\(error.description)")
    }

    @Test func oauthsCodeIsASecretWhereOAuthPutsItAndNowhereElse() {
        let redaction = Redaction.default
        // Where OAuth puts it: a redirect URI's query or fragment, a token request's form body.
        let callback = redaction.url("https://app.test/cb?code=c-query&state=s1")
        #expect(!callback.contains("c-query") && callback.contains("state=s1"))
        #expect(!redaction.url("https://app.test/cb#code=c-frag&state=s1").contains("c-frag"))
        let form = redaction.body(
            "grant_type=authorization_code&code=c-form", contentType: "application/x-www-form-urlencoded")
        #expect(!form.contains("c-form"))
        #expect(redaction.isListedField("code"))
        // An error body's `code` is the field a developer needs.
        let errorBody = #"{"code": "invalid_title", "message": "Title can't be blank"}"#
        #expect(redaction.redactJSON(errorBody) == errorBody)
        #expect(redaction.body(errorBody, contentType: "application/json") == errorBody)
        #expect(!SecretName.isSecret("code"))
        #expect(Redaction.default.value(ofHeader: "Code", "visible") == "visible")
        // The device flow's and the qualified codes stay secret in JSON too.
        let device = redaction.redactJSON(#"{"device_code":"d1","user_code":"u1","auth_code":"a1"}"#)
        #expect(!device.contains("d1") && !device.contains("u1") && !device.contains("a1"))
    }

    @Test func jsonInsideAJSONStringIsReadOneLevelDeep() {
        let redaction = Redaction.default
        let inner = #"{"refresh_token":"nested-secret","kind":"x"}"#
        let outer = String(decoding: try! JSONEncoder().encode(["payload": inner, "note": "plain"]), as: UTF8.self)
        let redacted = redaction.redactJSON(outer)
        #expect(!redacted.contains("nested-secret"))
        #expect(redacted.contains("plain"))
        // Still valid JSON whose string still holds JSON.
        let decoded = try? JSONDecoder().decode([String: String].self, from: Data(redacted.utf8))
        let payload = decoded?["payload"] ?? ""
        #expect(payload.contains("\"kind\":\"x\"") && payload.contains(Redaction.placeholder))
    }
}
