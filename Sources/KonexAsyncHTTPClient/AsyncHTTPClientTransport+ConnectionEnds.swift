#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1
    import NIOPosix

    // How a connection's end reads: the end of a body the server delimits by closing, or a kept-alive connection that
    // was gone before the request's answer began (sent again once).
    extension AsyncHTTPClientTransport {
        /// Whether `error` is the end of a body the server delimits by closing the connection: a response with
        /// neither `Content-Length` nor chunked coding (RFC 9112 §6.3, 8th rule). AsyncHTTPClient reports that close
        /// as `remoteConnectionClosed`; curl and URLSession read it as the end.
        static func endsByClose(_ error: any Error, _ headers: NIOHTTP1.HTTPHeaders) -> Bool {
            guard let client = error as? HTTPClientError, client == .remoteConnectionClosed else { return false }
            let chunked = headers[canonicalForm: "transfer-encoding"].contains { $0.lowercased() == "chunked" }
            return !chunked && headers.first(name: "content-length") == nil
        }

        /// Whether `error` is a connection that was closed before a byte of the answer came: what a request sent on a
        /// kept-alive connection the server closed at the same moment fails with. A server whose socket closed with the
        /// request unread resets it, so the read fails with `ECONNRESET` (1 of 256 concurrent GETs to gunicorn in a
        /// fresh-clone run).
        static func isStaleConnection(_ error: any Error) -> Bool {
            if let channel = error as? ChannelError, case .ioOnClosedChannel = channel { return true }
            if let client = error as? HTTPClientError, client == .remoteConnectionClosed { return true }
            if let io = error as? IOError, io.errnoCode == ECONNRESET { return true }
            // Bytes an earlier response left past its Content-Length, read as the start of this answer: no head of
            // this request's came (the head is not whole until `execute` returns), and NIO closes a connection whose
            // parser failed, so the request goes again on another.
            if error is HTTPParserError { return true }
            return false
        }
    }
#endif
