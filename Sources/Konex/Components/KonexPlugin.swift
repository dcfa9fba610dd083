import Foundation

/// Observes requests as they are sent and responses as they arrive: logging, activity indicators, metrics.
///
/// Both methods default to doing nothing, so a plugin implements only what it needs. Plugins observe;
/// to change the outgoing request use a ``RequestAdapter``.
/// ```swift
/// struct ActivityPlugin: KonexPlugin {
///     func didSendRequest(_ request: TransportRequest) async { await Spinner.shared.start() }
///     func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async {
///         await Spinner.shared.stop()
///     }
/// }
/// ```
public protocol KonexPlugin: Sendable {
    /// Called with the final request (after adapters), right before each attempt goes to the transport.
    /// - Parameter request: The request being sent.
    func didSendRequest(_ request: TransportRequest) async

    /// Called after each attempt with what the transport returned, before validation.
    /// - Parameters:
    ///   - result: The response and its timing, or the transport failure.
    ///   - request: The request that was sent.
    func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async

    /// The earlier signature of `didSendRequest(_ request: TransportRequest)`, from before ``TransportRequest``:
    /// still called, with the request as a `URLRequest`, when a plugin implements it and not the new one. Write
    /// `didSendRequest(_ request: TransportRequest)` instead.
    /// - Parameter request: The request being sent, as a Foundation request.
    func didSendRequest(_ request: URLRequest) async

    /// The earlier signature of `didReceiveResponse(_:for: TransportRequest)`: still called, with the request as a
    /// `URLRequest`, when a plugin implements it and not the new one. Write
    /// `didReceiveResponse(_ result:, for request: TransportRequest)` instead.
    /// - Parameters:
    ///   - result: The response and its timing, or the transport failure.
    ///   - request: The request that was sent, as a Foundation request.
    func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: URLRequest) async
}

// A plugin written for the earlier signatures keeps working: without these requirements its methods would be
// unrelated ones, never called (see `EarlierSignatures`).
extension KonexPlugin {
    public func didSendRequest(_ request: TransportRequest) async {
        guard EarlierSignatures.mayImplement(Self.self, .pluginDidSend) else { return }
        await didSendRequest(request.urlRequest)
        EarlierSignatures.forwarded(Self.self, .pluginDidSend)
    }

    public func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async
    {
        guard EarlierSignatures.mayImplement(Self.self, .pluginDidReceive) else { return }
        await didReceiveResponse(result, for: request.urlRequest)
        EarlierSignatures.forwarded(Self.self, .pluginDidReceive)
    }

    public func didSendRequest(_ request: URLRequest) async {
        EarlierSignatures.recordDefault(Self.self, .pluginDidSend)
    }

    public func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: URLRequest) async {
        EarlierSignatures.recordDefault(Self.self, .pluginDidReceive)
    }
}
