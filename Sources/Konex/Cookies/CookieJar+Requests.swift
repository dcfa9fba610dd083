import Foundation

extension CookieJar {
    /// `request` as it goes to the transport: the jar's cookies for its URL after any `Cookie` of the caller's own,
    /// and URLSession's cookie handling off, so its storage neither adds a cookie nor keeps one.
    func attaching(to request: TransportRequest) -> TransportRequest {
        var request = request
        request.httpShouldHandleCookies = false
        if let cookies = cookieHeader(for: request.url) {
            let own = request.value(forHTTPHeaderField: "Cookie").flatMap { $0.isEmpty ? nil : $0 }
            request.head.headerFields.replace("Cookie", with: own.map { $0 + "; " + cookies } ?? cookies)
        }
        return request
    }

    /// Keeps the cookies `response` sets, in answer to `request`; a stored answer (``ResponseSource/cache``) sets
    /// none, since its server did not send it now.
    func receive(_ response: ResponseHead, source: ResponseSource, answering request: TransportRequest) {
        guard source != .cache else { return }
        let lines = SetCookieLines.lines(of: response)
        if !lines.isEmpty { receive(lines, from: request.url) }
    }
}
