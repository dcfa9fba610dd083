import Foundation

/// Rejects a response by throwing: a status outside a range, an unexpected content type, a business rule.
///
/// Validators run in order (client, request, call site) after plugins saw the response and before processors.
/// Whatever they throw becomes a ``KonexError`` with stage ``KonexError/Stage/validation``, the response and
/// the decoded error body when an `errorType` was given.
/// ```swift
/// client.request(GetPosts()).validate(.statusCode(200..<300)).validate(.contentType(["application/json"]))
/// ```
public protocol KonexResponseValidator: Sendable {
    /// Throws when `response` is not acceptable.
    /// - Parameters:
    ///   - response: The HTTP response head.
    ///   - data: The body as received.
    /// - Throws: Any error; ``ValidationFailure`` for the built-ins.
    func validate(_ response: ResponseHead, data: Data) throws
}

/// Why a built-in validator rejected a response.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, e.g. `unacceptable status code 404 (expected 200..<300)`.
    public let reason: String
    /// Creates a failure with a reason.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Accepts only the given status codes.
public struct StatusCodeValidator: KonexResponseValidator {
    // Stored as given (small enough to sit inline in an existential); the message is written only on failure.
    private enum Acceptable: Sendable {
        case range(Range<Int>)
        case codes(Set<Int>)
    }
    private let acceptable: Acceptable

    /// Accepts codes in `range`.
    public init(_ range: Range<Int>) { acceptable = .range(range) }

    /// Accepts codes in `codes`.
    public init(_ codes: Set<Int>) { acceptable = .codes(codes) }

    public func validate(_ response: ResponseHead, data: Data) throws {
        let status = response.statusCode
        switch acceptable {
        case .range(let range) where range.contains(status): return
        case .codes(let codes) where codes.contains(status): return
        default: throw ValidationFailure("unacceptable status code \(status) (expected \(expectation))")
        }
    }

    private var expectation: String {
        switch acceptable {
        case .range(let range): "\(range.lowerBound)..<\(range.upperBound)"
        case .codes(let codes) where codes.isEmpty: "no status code at all"
        case .codes(let codes): codes.sorted().map(String.init).joined(separator: ", ")
        }
    }
}

/// Accepts only responses whose `Content-Type` matches one of the given media types (`*/*`, `type/*` allowed).
///
/// An empty body passes: there is no content to have a type (a 204 has no `Content-Type`).
public struct ContentTypeValidator: KonexResponseValidator {
    let acceptable: [String]

    /// Creates a validator for the given media types, e.g. `["application/json", "text/*"]`.
    public init(_ acceptable: [String]) { self.acceptable = acceptable }

    public func validate(_ response: ResponseHead, data: Data) throws {
        if data.isEmpty { return }
        guard let header = response.value(forHTTPHeaderField: "Content-Type") else {
            throw ValidationFailure("missing Content-Type (expected \(acceptable.joined(separator: ", ")))")
        }
        guard MediaType.matches(header, anyOf: acceptable) else {
            throw ValidationFailure(
                "unacceptable Content-Type \"\(header)\" (expected \(acceptable.joined(separator: ", ")))")
        }
    }
}

/// A validator made from a closure.
public struct ClosureValidator: KonexResponseValidator {
    let body: @Sendable (ResponseHead, Data) throws -> Void
    /// Creates a validator from a closure that throws to reject.
    public init(_ body: @escaping @Sendable (ResponseHead, Data) throws -> Void) { self.body = body }
    public func validate(_ response: ResponseHead, data: Data) throws { try body(response, data) }
}

extension KonexResponseValidator where Self == StatusCodeValidator {
    /// Accepts status codes in `range`, e.g. `.statusCode(200..<300)`.
    public static func statusCode(_ range: Range<Int>) -> StatusCodeValidator { StatusCodeValidator(range) }
    /// Accepts the listed status codes, e.g. `.statusCode([200, 304])`.
    public static func statusCode(_ codes: Set<Int>) -> StatusCodeValidator { StatusCodeValidator(codes) }
}

extension KonexResponseValidator where Self == ContentTypeValidator {
    /// Accepts the listed media types, e.g. `.contentType(["application/json"])`.
    public static func contentType(_ acceptable: [String]) -> ContentTypeValidator { ContentTypeValidator(acceptable) }
}

extension KonexResponseValidator where Self == ClosureValidator {
    /// A validator from a closure that throws to reject.
    public static func custom(_ body: @escaping @Sendable (ResponseHead, Data) throws -> Void) -> ClosureValidator {
        ClosureValidator(body)
    }
}
