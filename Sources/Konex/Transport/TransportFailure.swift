import Foundation

/// Why a transport got no response, in Konex's own words: what retries, `isTimeout`, error messages and metric labels
/// read, the same over every transport.
///
/// A transport over another client throws one with the client's error as ``underlying``, instead of forcing that
/// error into a `URLError` code; `URLSessionTransport`'s `URLError`s read as the same kinds.
/// ```swift
/// catch let error as ChannelError {
///     throw TransportFailure(.cannotConnectToHost, url: request.url, underlying: error)
/// }
/// ```
public struct TransportFailure: Error, Sendable, CustomStringConvertible {
    /// The kind of failure: an extensible set, named as `URLError`'s codes are.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No answer in time: connecting, waiting for the head, or a body gone silent.
        public static let timedOut = Kind(rawValue: "timedOut")
        /// The host refused or could not be reached.
        public static let cannotConnectToHost = Kind(rawValue: "cannotConnectToHost")
        /// The host name did not resolve.
        public static let cannotFindHost = Kind(rawValue: "cannotFindHost")
        /// No network at all.
        public static let notConnectedToInternet = Kind(rawValue: "notConnectedToInternet")
        /// The connection closed or reset before the answer was whole.
        public static let networkConnectionLost = Kind(rawValue: "networkConnectionLost")
        /// What came back is not a valid HTTP answer.
        public static let badServerResponse = Kind(rawValue: "badServerResponse")
        /// The TLS handshake failed (an untrusted certificate, a protocol mismatch).
        public static let secureConnectionFailed = Kind(rawValue: "secureConnectionFailed")
        /// The URL cannot be sent (no host, an unknown scheme).
        public static let badURL = Kind(rawValue: "badURL")
        /// A compressed body inflated past the transport's decompression limit (a decompression bomb, or a limit
        /// set too low for a body that really is that compressible); ``TransportFailure/underlying`` names the limit
        /// and the setting that raises it. Never retried: the same body inflates the same way.
        public static let decompressionLimitExceeded = Kind(rawValue: "decompressionLimitExceeded")
        /// Anything else; ``TransportFailure/underlying`` says what.
        public static let other = Kind(rawValue: "other")

        /// The `URLError` code of the same meaning, for ``RetryPolicy/retryableURLErrorCodes``.
        public var urlErrorCode: URLError.Code {
            switch self {
            case .timedOut: .timedOut
            case .cannotConnectToHost: .cannotConnectToHost
            case .cannotFindHost: .cannotFindHost
            case .notConnectedToInternet: .notConnectedToInternet
            case .networkConnectionLost: .networkConnectionLost
            case .badServerResponse: .badServerResponse
            case .secureConnectionFailed: .secureConnectionFailed
            case .badURL: .badURL
            default: .unknown
            }
        }

        /// The kind a `URLError` code stands for.
        /// - Parameter code: The code.
        public init(_ code: URLError.Code) {
            switch code {
            case .timedOut: self = .timedOut
            case .cannotConnectToHost: self = .cannotConnectToHost
            case .cannotFindHost, .dnsLookupFailed: self = .cannotFindHost
            case .notConnectedToInternet: self = .notConnectedToInternet
            case .networkConnectionLost: self = .networkConnectionLost
            case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
                self = .badServerResponse
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
                self = .secureConnectionFailed
            case .badURL, .unsupportedURL: self = .badURL
            default: self = .other
            }
        }

        /// The kind of any error a transport threw: a ``TransportFailure``'s own, a `URLError`'s, else `nil`.
        /// - Parameter error: The error.
        public init?(of error: any Error) {
            if let failure = error as? TransportFailure {
                self = failure.kind
            } else if let urlError = error as? URLError {
                self.init(urlError.code)
            } else {
                return nil
            }
        }
    }

    /// What went wrong.
    public let kind: Kind
    /// The URL being fetched, when known.
    public let url: URL?
    /// The client's own error, kept as it was.
    public let underlying: (any Error)?

    /// Creates a failure.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - url: The URL being fetched.
    ///   - underlying: The client's own error.
    public init(_ kind: Kind, url: URL? = nil, underlying: (any Error)? = nil) {
        self.kind = kind
        self.url = url
        self.underlying = underlying
    }

    public var description: String {
        let cause = underlying.map { ": \(String(describing: $0).prefix(300))" } ?? ""
        return "\(kind)\(url.map { " (\($0.absoluteString.prefix(200)))" } ?? "")\(cause)"
    }
}
