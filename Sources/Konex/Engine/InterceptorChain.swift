import Foundation

/// The interceptors of one request, client level first, ending at the transport.
struct InterceptorChain: Sendable {
    let interceptors: [any TransportInterceptor]

    /// The chain of every exchange's but a WebSocket's (its handshake opens a connection, not a body); none without
    /// interceptors.
    init?(_ interceptors: Layers<any TransportInterceptor>, for target: BodyTarget) {
        switch target {
        case _ where interceptors.isEmpty, .webSocket: return nil
        case .memory, .file, .stream: self.interceptors = Array(interceptors)
        }
    }

    /// Runs `request` through the interceptors from `index` on, then `transport`.
    func reply(
        to request: TransportRequest, from index: Int = 0, delivery: BodyDelivery, clientIdentity: ObjectIdentifier?,
        transport: @escaping @Sendable (TransportRequest) async throws -> TransportReply
    ) async throws -> TransportReply {
        guard index < interceptors.count else { return try await transport(request) }
        let next = TransportNext(delivery: delivery, clientIdentity: clientIdentity) { request in
            try await self.reply(
                to: request, from: index + 1, delivery: delivery, clientIdentity: clientIdentity, transport: transport)
        }
        return try await interceptors[index].intercept(request, next: next)
    }
}
