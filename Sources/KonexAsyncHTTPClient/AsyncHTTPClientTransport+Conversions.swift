#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1

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
            var fields: [(name: String, value: String)] = []
            fields.reserveCapacity(headers.count)
            for field in headers { fields.append((field.name, field.value)) }
            return ResponseHead(
                statusCode: Int(status.code), headerFields: HTTPHeaders(keepingRepeats: fields), url: url)
        }

        /// AsyncHTTPClient's and SwiftNIO's errors as Konex's ``Konex/TransportFailure`` kinds (the error kept as
        /// `underlying`), so retries, messages and stages read the same over either transport; cancellation stays
        /// cancellation.
        static func transportError(_ error: any Error, url: URL) -> any Error {
            if error is CancellationError || error is URLError { return error }
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
            if error is ChannelError {
                return TransportFailure(.cannotConnectToHost, url: url, underlying: error)
            }
            if let posix = error as? IOError, posix.errnoCode == ECONNREFUSED {
                return TransportFailure(.cannotConnectToHost, url: url, underlying: error)
            }
            if String(reflecting: type(of: error)).contains("NIOSSL") {
                return TransportFailure(.secureConnectionFailed, url: url, underlying: error)
            }
            return TransportFailure(.other, url: url, underlying: error)
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
