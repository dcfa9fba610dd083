import Foundation

/// Which conformers leave a requirement's earlier signature (Konex 2.0's `URLRequest` forms) to its default, learned
/// on the first call and then looked up: a plugin or a recorder written for the old signature is still called, and
/// one that implements neither pays a short scan, never a `URLRequest` built for nothing.
///
/// Swift matches a requirement by its whole signature: a conformer's `didSendRequest(_: URLRequest)` beside a protocol
/// that asks for `didSendRequest(_: TransportRequest)` would compile as an unrelated method and never be called. So
/// the earlier signature stays a requirement, with a default that records "not implemented", and the new
/// requirement's default forwards to it until that is known.
///
/// The earlier requirements are not `@available(*, deprecated)`: the forwarding default calls them, and Konex builds
/// with warnings as errors (nor would it warn a conformer: Swift does not diagnose a witness of a deprecated
/// requirement, and a requirement cannot be `unavailable` outside `@objc`). Their documentation says which to write.
enum EarlierSignatures {
    /// A requirement whose earlier signature is still honoured.
    enum Requirement: UInt8, Sendable {
        case pluginDidSend, pluginDidReceive, recorderWillSend
    }

    private struct Known: Sendable {
        let type: ObjectIdentifier
        let requirement: Requirement
    }

    private struct State: Sendable {
        /// Types whose earlier signature was seen to be the default.
        var defaults: [Known] = []
        /// Types that implement neither signature: the current one's default ran and found the earlier one default.
        /// The pipeline does not call them at all (an async call that does nothing still hops executors).
        var idle: [Known] = []
    }

    /// A handful of component types in an app: a linear scan of a short array costs less than hashing a key.
    /// Bounded: past the bound a type is forwarded to every time, which is slower, never wrong.
    private static let state = Lock(State())
    private static let bound = 512

    /// Whether `type` may implement `requirement`'s earlier signature: `false` once its default was seen to run.
    static func mayImplement(_ type: Any.Type, _ requirement: Requirement) -> Bool {
        let id = ObjectIdentifier(type)
        return state.withLock { state in !state.defaults.contains { $0.type == id && $0.requirement == requirement } }
    }

    /// Whether `type` is known to implement `requirement` in neither signature, so calling it does nothing.
    @inline(__always)
    static func isIdle(_ type: Any.Type, _ requirement: Requirement) -> Bool {
        let id = ObjectIdentifier(type)
        return state.withLock { state in state.idle.contains { $0.type == id && $0.requirement == requirement } }
    }

    /// Records that `type` leaves `requirement`'s earlier signature to its default (called by that default).
    static func recordDefault(_ type: Any.Type, _ requirement: Requirement) {
        state.withLock { state in
            insert(Known(type: ObjectIdentifier(type), requirement: requirement), into: &state.defaults)
        }
    }

    /// Called by the current signature's default after it forwarded: when the earlier one was the default too, the
    /// type implements neither.
    static func forwarded(_ type: Any.Type, _ requirement: Requirement) {
        let entry = Known(type: ObjectIdentifier(type), requirement: requirement)
        state.withLock { state in
            guard state.defaults.contains(where: { $0.type == entry.type && $0.requirement == requirement }) else {
                return
            }
            insert(entry, into: &state.idle)
        }
    }

    private static func insert(_ entry: Known, into list: inout [Known]) {
        guard list.count < bound,
            !list.contains(where: { $0.type == entry.type && $0.requirement == entry.requirement })
        else { return }
        list.append(entry)
    }
}
