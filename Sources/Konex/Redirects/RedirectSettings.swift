import Foundation

/// How a client's requests follow redirects: the policy, the redaction whose secret headers stay with their origin,
/// and the cookie jar each hop takes its own cookies from.
// A class: settled once per client and read once a call, it costs one reference, not a copy of the policy's closure and
// the redaction's sets.
final class RedirectSettings: Sendable {
    let policy: RedirectPolicy
    let redaction: Redaction
    let cookies: CookieJar?

    init(policy: RedirectPolicy, redaction: Redaction, cookies: CookieJar?) {
        self.policy = policy
        self.redaction = redaction
        self.cookies = cookies
    }
}
