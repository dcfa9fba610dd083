import Foundation
import Konex

/// A clock that moves only when the test says so: sleepers wake when ``advance(by:)`` passes their deadline.
///
/// It makes "what happens during a 3-second delay" testable deterministically:
/// ```swift
/// let clock = ManualClock()
/// let client = KonexClient(transport: MockTransport(clock: clock).stubbing(.get("/slow"), .json(x).delayed(by: .seconds(3))))
/// async let value = client.request("/slow").responseData()
/// try await clock.waitForSleepers()      // the request is now waiting on the delay
/// clock.advance(by: .seconds(3))         // …and now it completes
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point in this clock's manual time.
    public typealias Instant = ImmediateClock.Instant

    private struct Sleeper {
        let deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>?
        var cancelled = false
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    /// Creates a clock at time zero.
    public init() {}

    public var now: Instant { state.value.now }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.values.filter { $0.continuation != nil }.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            guard state.now < deadline else { return nil }
            state.nextID += 1
            state.sleepers[state.nextID] = Sleeper(deadline: deadline)
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    guard let sleeper = state.sleepers[id] else { return false }
                    if sleeper.cancelled {
                        state.sleepers[id] = nil
                        return true
                    }
                    state.sleepers[id]?.continuation = continuation
                    return false
                }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                guard let sleeper = state.sleepers[id] else { return nil }
                if let continuation = sleeper.continuation {
                    state.sleepers[id] = nil
                    return continuation
                }
                state.sleepers[id]?.cancelled = true
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    /// - Parameter duration: How far to move.
    public func advance(by duration: Duration) {
        let woken: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now && $0.value.continuation != nil }
                .sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.compactMap(\.value.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits (without advancing time) until at least `count` tasks sleep on this clock.
    /// - Parameters:
    ///   - count: How many sleepers to wait for; 1 by default.
    ///   - timeout: How long to wait in real time before giving up.
    /// - Throws: ``WaitTimeout`` naming how many sleepers there were, so a regression fails instead of hanging.
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(120)) async throws {
        try await WaitTimeout.wait(
            for: "\(count) sleeper(s) on the ManualClock; \(sleeperCount) sleeping", timeout: timeout
        ) { sleeperCount >= count }
    }
}
