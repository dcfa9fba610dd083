#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1
    import NIOPosix

    // Between Konex's request and response heads and AsyncHTTPClient's, and its errors as Konex's failure kinds.
    extension AsyncHTTPClientTransport {
        /// `request` for AsyncHTTPClient. With `uploadProgress`, the body goes out in 64 KiB chunks that NIO pulls as
        /// the socket takes them, each pull reported; without it, in one buffer.
        static func request(
            _ request: TransportRequest, uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil
        ) throws -> HTTPClientRequest {
            var converted = HTTPClientRequest(url: request.url.absoluteString)
            converted.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
            for (name, value) in request.head.headerFields { converted.headers.add(name: name, value: value) }
            if let chunks = request.body?.chunks {
                // Written as the caller produces it, while the answer may already be coming back.
                converted.body = .stream(chunks.map { ByteBuffer(bytes: $0) }, length: .unknown)
                return converted
            }
            if let body = try request.body?.collect(upTo: Int.max) {
                if let uploadProgress, !body.isEmpty {
                    converted.body = .stream(
                        UploadChunks(body: body, report: uploadProgress), length: .known(Int64(body.count)))
                } else {
                    converted.body = .bytes(ByteBuffer(bytes: body))
                }
            }
            return converted
        }

        /// A head as Konex reads it, for the HTTP transport and the WebSocket handshake alike: every field kept,
        /// repeats and case as sent, no Foundation response made.
        static func head(status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders, url: URL) -> ResponseHead {
            var ignored: Int64?
            return head(status: status, headers: headers, url: url, contentLength: &ignored)
        }

        /// ``head(status:headers:url:)``, and the `Content-Length` the head announces, found on the way (a search of
        /// its own cost 230 instructions a request).
        static func head(
            status: HTTPResponseStatus, headers: NIOHTTP1.HTTPHeaders, url: URL, contentLength: inout Int64?
        ) -> ResponseHead {
            var fields: [(name: String, value: String)] = []
            fields.reserveCapacity(headers.count)
            for field in headers {
                fields.append((field.name, field.value))
                if contentLength == nil, Konex.HTTPHeaders.equal(field.name, "Content-Length") {
                    contentLength = Int64(field.value)
                }
            }
            return ResponseHead(
                statusCode: Int(status.code), headerFields: HTTPHeaders(keepingRepeats: fields), url: url)
        }

        /// AsyncHTTPClient's and SwiftNIO's errors as Konex's ``Konex/TransportFailure`` kinds (the error kept as
        /// `underlying`), so retries, messages and stages read the same over either transport; cancellation stays
        /// cancellation.
        static func transportError(_ error: any Error, url: URL) -> any Error {
            if error is CancellationError || error is URLError { return error }
            if let failure = error as? TLSFailure {
                return TransportFailure(.secureConnectionFailed, url: url, underlying: failure)
            }
            if let failure = error as? TransportFailure {
                return failure.url == nil
                    ? TransportFailure(failure.kind, url: url, underlying: failure.underlying) : failure
            }
            if let client = error as? HTTPClientError {
                switch client {
                case .cancelled: return CancellationError()
                case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
                    .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                    return TransportFailure(.timedOut, url: url, underlying: error)
                case .remoteConnectionClosed, .uncleanShutdown:
                    return TransportFailure(.networkConnectionLost, url: url, underlying: error)
                case .invalidURL, .emptyHost, .emptyScheme:
                    return TransportFailure(.badURL, url: url, underlying: error)
                default: return TransportFailure(.badServerResponse, url: url, underlying: error)
                }
            }
            if let channel = error as? ChannelError {
                // Errors of a channel already open: the request may have reached the server.
                let lost: [ChannelError] = [.ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed]
                return TransportFailure(
                    lost.contains(channel) ? .networkConnectionLost : .cannotConnectToHost, url: url, underlying: error)
            }
            if let connection = error as? NIOConnectionError {
                // Nothing to connect to: every address lookup failed before any connection was tried.
                let lookupOnly =
                    connection.connectionErrors.isEmpty
                    && (connection.dnsAError != nil || connection.dnsAAAAError != nil)
                return TransportFailure(
                    lookupOnly ? .cannotFindHost : .cannotConnectToHost, url: url, underlying: error)
            }
            if error is SocketAddressError.UnknownHost {
                return TransportFailure(.cannotFindHost, url: url, underlying: error)
            }
            if let address = error as? SocketAddressError {
                // `.unknown` is the older spelling of an unknown host; the rest say the address cannot be used.
                let unknownHost = "\(address)".hasPrefix("unknown")
                return TransportFailure(unknownHost ? .cannotFindHost : .badURL, url: url, underlying: error)
            }
            if let posix = error as? IOError, let kind = Self.kind(of: posix) {
                return TransportFailure(kind, url: url, underlying: error)
            }
            if error is HTTPParserError {
                return TransportFailure(.badServerResponse, url: url, underlying: error)
            }
            let typeName = String(reflecting: type(of: error))
            if typeName.contains("NIOSSL") {
                return TransportFailure(.secureConnectionFailed, url: url, underlying: error)
            }
            // NIOHTTPCompression's errors, by name: the module is AsyncHTTPClient's, not a dependency of Konex's.
            if typeName.hasSuffix("NIOHTTPDecompression.DecompressionError") {
                guard "\(error)" == "limit" else {
                    return TransportFailure(.badServerResponse, url: url, underlying: error)  // a corrupt body
                }
                return TransportFailure(.decompressionLimitExceeded, url: url, underlying: DecompressionLimitExceeded())
            }
            if typeName.hasSuffix("NIOHTTPDecompression.ExtraDecompressionError") {
                return TransportFailure(.badServerResponse, url: url, underlying: error)
            }
            return TransportFailure(.other, url: url, underlying: error)
        }

        /// The failure kind of a socket error. Only a connect's own failure says nothing was sent; the same `errno`
        /// from a connection that may be open (a read, a write, an error the poller reported: a route lost
        /// mid-request) is a lost connection, which `ConnectivityRetrier` never reads as "nothing was sent", so a
        /// `POST` is not sent twice. NIO names the call that failed first in the error's description; a refusal is a
        /// connect's whatever the call (an open connection is reset, never refused).
        static func kind(of error: IOError) -> TransportFailure.Kind? {
            guard let kind = kind(ofErrno: error.errnoCode) else { return nil }
            let text = error.description
            let connecting =
                error.errnoCode == ECONNREFUSED || text.hasPrefix("connect:")
                || text.hasPrefix("finishing a non-blocking connect")
            return connecting || kind == .timedOut ? kind : .networkConnectionLost
        }

        /// The failure kind of a socket's `errno`, for the ones people meet; `nil` for the rest.
        static func kind(ofErrno code: Int32) -> TransportFailure.Kind? {
            switch code {
            case ECONNREFUSED, EHOSTUNREACH, EHOSTDOWN: .cannotConnectToHost
            case ENETUNREACH, ENETDOWN: .notConnectedToInternet
            case ECONNRESET, ECONNABORTED, EPIPE, ENOTCONN: .networkConnectionLost
            case ETIMEDOUT: .timedOut
            default: nil
            }
        }
    }

    /// A request body in chunks, reporting how much of it was taken each time NIO asks for more: the socket's pace,
    /// since NIO asks only when its channel is writable. 0 first, the whole size last, strictly increasing between.
    struct UploadChunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let body: Data
        let report: @Sendable (TransferProgress) -> Void
        static let chunkSize = 64 << 10

        struct AsyncIterator: AsyncIteratorProtocol {
            let body: Data
            let report: @Sendable (TransferProgress) -> Void
            var offset = 0
            var finished = false

            mutating func next() async throws -> ByteBuffer? {
                guard !finished else { return nil }
                let total = Int64(body.count)
                report(TransferProgress(direction: .upload, completedBytes: Int64(offset), totalBytes: total))
                guard offset < body.count else {
                    finished = true
                    return nil
                }
                let end = Swift.min(offset + UploadChunks.chunkSize, body.count)
                let chunk = ByteBuffer(bytes: body[(body.startIndex + offset)..<(body.startIndex + end)])
                offset = end
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: body, report: report) }
    }
#endif
