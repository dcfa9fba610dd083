import Foundation

/// The interceptors of one request, client level first, ending at the transport.
struct InterceptorChain: Sendable {
    let interceptors: [any TransportInterceptor]

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
