#if AsyncHTTPClient
    import AsyncHTTPClient
    import CKonexZlib
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1
    import TestSupport
    import Testing

    @testable import KonexAsyncHTTPClient

    /// The failures people meet over AsyncHTTPClient, each with a kind of its own and a message that says what to do.
    @Suite struct TransportFailureKindTests {
        /// `size` zeros in the zlib format (HTTP's `deflate`): about a thousand times smaller.
        static func deflatedZeros(_ size: Int) -> Data {
            let input = [UInt8](repeating: 0, count: size)
            var length = compressBound(uLong(size))
            var output = [UInt8](repeating: 0, count: Int(length))
            let status = compress2(&output, &length, input, uLong(size), 9)
            precondition(status == Z_OK)
            return Data(output.prefix(Int(length)))
        }

        static func server(serving body: Data) throws -> MisbehavingServer {
            try MisbehavingServer(
                reply: Data(
                    "HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                        .utf8) + body)
        }

        /// Trust pass 3, item 9: a body past the decompression ratio says what the limit is and how to raise it.
        @Test func aBodyPastTheDecompressionRatioNamesTheLimitAndTheSetting() async throws {
            let size = 4 << 20
            let bomb = Self.deflatedZeros(size)
            #expect(bomb.count * 200 < size)
            let server = try Self.server(serving: bomb)
            let client = KonexClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: AsyncHTTPClientTransport.shared)
            let error = try await requireThrows(KonexError.self) { try await client.request("bomb").responseData() }
            #expect(error.transportFailure == .decompressionLimitExceeded)
            #expect(error.description.contains("makeClient(maximumDecompressionRatio:)"), "\(error.description)")
            #expect(error.description.contains("200 times"), "\(error.description)")
            #expect(
                !RetryPolicy().retryableURLErrorCodes.contains(
                    TransportFailure.Kind.decompressionLimitExceeded.urlErrorCode))

            // Raised, the same body arrives whole.
            let roomy = AsyncHTTPClientTransport.makeClient(maximumDecompressionRatio: 2_000)
            defer { Task { try await roomy.shutdown() } }
            let raised = KonexClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                transport: AsyncHTTPClientTransport(client: roomy))
            let data = try await raised.request("bomb").responseData()
            #expect(data.count == size)
        }

        @Test func aCorruptCompressedBodyIsABadServerResponse() async throws {
            let server = try Self.server(serving: Data("not deflate at all, just text".utf8))
            let client = KonexClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: AsyncHTTPClientTransport.shared)
            let error = try await requireThrows(KonexError.self) { try await client.request("bad").responseData() }
            #expect(error.transportFailure == .badServerResponse, "\(error)")
        }

        /// Every socket error people meet reads as a kind, not `.other`.
        @Test(arguments: [
            (ECONNREFUSED, TransportFailure.Kind.cannotConnectToHost), (EHOSTUNREACH, .cannotConnectToHost),
            (ENETUNREACH, .notConnectedToInternet), (ENETDOWN, .notConnectedToInternet),
            (ECONNRESET, .networkConnectionLost), (EPIPE, .networkConnectionLost), (ETIMEDOUT, .timedOut),
        ])
        func aSocketErrorHasAKind(code: Int32, kind: TransportFailure.Kind) {
            let url = URL(string: "http://127.0.0.1/x")!
            let failure = AsyncHTTPClientTransport.transportError(IOError(errnoCode: code, reason: "connect"), url: url)
            #expect((failure as? TransportFailure)?.kind == kind)
            #expect((failure as? TransportFailure)?.url == url)
        }

        /// The same errors from a connection already open (a route lost mid-request) say the request may have
        /// been seen: connection lost, never "cannot connect" or "not connected", which read as nothing sent.
        @Test(arguments: [
            (EHOSTUNREACH, "read"), (ENETUNREACH, "write"), (ENETDOWN, "writev"), (EHOSTDOWN, "readv"),
            (EHOSTUNREACH, "connection reset (error set)"),
        ])
        func aSocketErrorOnAnOpenConnectionIsALostConnection(code: Int32, call: String) {
            let url = URL(string: "http://127.0.0.1/x")!
            let failure = AsyncHTTPClientTransport.transportError(IOError(errnoCode: code, reason: call), url: url)
            #expect((failure as? TransportFailure)?.kind == .networkConnectionLost, "\(failure)")
            let connecting = IOError(errnoCode: code, reason: "finishing a non-blocking connect failed")
            #expect(
                (AsyncHTTPClientTransport.transportError(connecting, url: url) as? TransportFailure)?.kind
                    != .networkConnectionLost)
            // The poller reports a refused connect the same way: a refusal is always a connect's.
            let refused = IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)")
            #expect(
                (AsyncHTTPClientTransport.transportError(refused, url: url) as? TransportFailure)?.kind
                    == .cannotConnectToHost)
            for closed in [ChannelError.ioOnClosedChannel, .eof, .outputClosed] {
                #expect(
                    (AsyncHTTPClientTransport.transportError(closed, url: url) as? TransportFailure)?.kind
                        == .networkConnectionLost)
            }
        }

        @Test func addressAndParserErrorsHaveKinds() async throws {
            let url = URL(string: "http://127.0.0.1/x")!
            let unsupported = SocketAddressError.unsupported
            #expect(
                (AsyncHTTPClientTransport.transportError(unsupported, url: url) as? TransportFailure)?.kind == .badURL)
            let parser = HTTPParserError.invalidStatus
            #expect(
                (AsyncHTTPClientTransport.transportError(parser, url: url) as? TransportFailure)?.kind
                    == .badServerResponse)
        }
    }
#endif
