import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers every request in-process with a small JSON body: the URLSession machinery runs, no socket does, so the
/// `urlprotocol_small` case is steady and measures Konex's own per-request work around `URLSessionTransport`.
final class StubProtocol: URLProtocol {
    static let body = Data(#"{"done":false,"id":7,"title":"a small todo"}"#.utf8)

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let response = HTTPURLResponse(
            url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": "application/json", "Content-Length": "\(Self.body.count)"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Self.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        // KONEX_URLP_NOCACHE=1: no URLCache on either side. FoundationNetworking's cache lists its directory on disk
        // for every request it may answer (about half of an in-process request's cost here); this takes it away.
        if ProcessInfo.processInfo.environment["KONEX_URLP_NOCACHE"] != nil { configuration.urlCache = nil }
        return configuration
    }
}
