#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore

    /// `permessage-deflate` (RFC 7692) as the server agreed to it: what the client offers, what the answer allows.
    struct PerMessageDeflate: Sendable, Hashable {
        /// The server starts each message with a fresh window.
        var serverNoContextTakeover = false
        /// The client must start each message with a fresh window.
        var clientNoContextTakeover = false
        /// The window the client's compressor may use (zlib's raw deflate has no 8: 9 stands in, as zlib itself does).
        var clientWindowBits: Int32 = 15

        /// Reads the server's `Sec-WebSocket-Extensions`: `nil` when it agreed to nothing.
        ///
        /// What the client offered holds whatever the answer says: a promise of fresh windows is kept, and the
        /// client's window is never larger than offered.
        /// - Throws: ``Konex/WebSocketFailure`` when it names an extension or a parameter the client did not offer,
        ///   or a client window larger than offered (RFC 6455 §9.1, RFC 7692 §7.1.2.2: the client must then fail the
        ///   connection).
        init?(answer values: [String], offered offer: WebSocketCompressionOffer?) throws {
            let extensions = values.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !extensions.isEmpty else { return nil }
            guard let offer, extensions.count == 1 else {
                throw WebSocketFailure(
                    .protocolViolation,
                    "the server agreed to extensions the client did not offer: \(extensions.joined(separator: ", "))")
            }
            // Empty pieces are kept (and refused below): a header of only ";" or "=" must not pass, nor trap.
            let parts = extensions[0].split(separator: ";", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts[0].lowercased() == "permessage-deflate" else {
                throw WebSocketFailure(
                    .protocolViolation, "the server agreed to an extension the client did not offer: \(extensions[0])")
            }
            clientNoContextTakeover = offer.clientNoContextTakeover
            clientWindowBits = Int32(max(9, offer.clientMaxWindowBits))
            var seen = Set<String>()
            for part in parts.dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
                let name = pair[0].lowercased()
                let value = pair.count > 1 ? Int(pair[1]) : nil
                guard seen.insert(name).inserted else {
                    throw WebSocketFailure(.protocolViolation, "permessage-deflate repeats \(name)")
                }
                switch name {
                case "server_no_context_takeover" where pair.count == 1: serverNoContextTakeover = true
                case "client_no_context_takeover" where pair.count == 1: clientNoContextTakeover = true
                // Any server window inflates with a window of 15 bits; only its range is checked.
                case "server_max_window_bits" where value.map({ (8...15).contains($0) }) == true: break
                case "client_max_window_bits" where value.map({ (8...offer.clientMaxWindowBits).contains($0) }) == true:
                    clientWindowBits = Int32(max(9, value!))
                default:
                    throw WebSocketFailure(
                        .protocolViolation, "permessage-deflate has a parameter not allowed: \(part)")
                }
            }
        }
    }
#endif
