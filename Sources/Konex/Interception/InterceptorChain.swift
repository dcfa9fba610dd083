import Foundation

/// The interceptors of one request, client level first, ending at the transport.
struct InterceptorChain: Sendable {
    let interceptors: [any TransportInterceptor]

    /// Runs `request` through the interceptors from `index` on, then `transport`.
    func reply(
        to request: URLRequest, from index: Int = 0,
        transport: @escaping @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> TransportReply {
        guard index < interceptors.count else {
            let (data, response) = try await transport(request)
            return TransportReply(data: data, response: response)
        }
        let next = TransportNext { request in
            try await self.reply(to: request, from: index + 1, transport: transport)
        }
        return try await interceptors[index].intercept(request, next: next)
    }
}
