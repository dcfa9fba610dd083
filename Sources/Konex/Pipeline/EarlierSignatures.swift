import Foundation

/// Which conformers implement a requirement in its earlier signature (Konex 2.0's `URLRequest` forms), learned on the
/// first call and then looked up: so a plugin or a recorder written for the old signature is still called, and one
/// that implements neither pays a lookup, never a `URLRequest` built for nothing.
///
/// Swift matches a requirement by its whole signature: a conformer's `didSendRequest(_: URLRequest)` beside a protocol
/// that asks for `didSendRequest(_: TransportRequest)` would compile as an unrelated method and never be called. So
/// the earlier signature stays a requirement, with a default that records "not implemented", and the new
/// requirement's default forwards to it.
///
/// The earlier requirements are not marked `@available(*, deprecated)`: the forwarding default has to call them,
/// and every such call would be a deprecation warning in Konex's own build, which treats warnings as errors (a
/// protocol requirement cannot be `unavailable` either, outside `@objc`). Their documentation says which to write.
final class EarlierSignatures: Sendable {
    /// A requirement whose earlier signature is still honoured.
    enum Requirement: UInt8, Sendable {
        case pluginDidSend, pluginDidReceive, recorderWillSend
    }

    private struct Key: Hashable {
        let type: ObjectIdentifier
        let requirement: Requirement
    }

    static let shared = EarlierSignatures()

    private let known = Lock<[Key: Bool]>([:])

    /// Whether `type` implements `requirement`'s earlier signature; `nil` until a call tells.
    func implements(_ type: Any.Type, _ requirement: Requirement) -> Bool? {
        let key = Key(type: ObjectIdentifier(type), requirement: requirement)
        return known.withLock { $0[key] }
    }

    /// Records that `type` leaves `requirement`'s earlier signature to its default (called by that default).
    func recordDefault(_ type: Any.Type, _ requirement: Requirement) {
        known.withLock { $0[Key(type: ObjectIdentifier(type), requirement: requirement)] = false }
    }

    /// After a first forwarded call: unless the default said otherwise, the conformer's own method ran.
    func recordImplementedUnlessDefault(_ type: Any.Type, _ requirement: Requirement) {
        let key = Key(type: ObjectIdentifier(type), requirement: requirement)
        known.withLock { known in
            if known[key] == nil { known[key] = true }
        }
    }

    /// Calls `forward` (the earlier signature) when `type` implements it or nobody knows yet, learning which.
    @inline(__always)
    func forward(_ type: Any.Type, _ requirement: Requirement, _ call: () async -> Void) async {
        switch implements(type, requirement) {
        case false?: return
        case true?: await call()
        case nil:
            await call()
            recordImplementedUnlessDefault(type, requirement)
        }
    }

    /// ``forward(_:_:_:)`` for a synchronous requirement.
    @inline(__always)
    func forward(_ type: Any.Type, _ requirement: Requirement, _ call: () -> Void) {
        switch implements(type, requirement) {
        case false?: return
        case true?: call()
        case nil:
            call()
            recordImplementedUnlessDefault(type, requirement)
        }
    }
}
