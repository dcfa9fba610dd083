import Foundation

/// A status and the tasks waiting for it to stop being offline: the part every ``ConnectivityMonitor`` shares
/// (the system monitors and KonexTesting's mock), so waking, cancelling and polling work one way.
package final class ConnectivityWaiters: Sendable {
    private struct State {
        var status: ConnectivityStatus
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Waiters given a number but not yet stored, and those of them cancelled meanwhile (never to be stored).
        var pending: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
        /// Whether a poller is running for these waiters (monitors that poll start one for the first waiter).
        var isPolling = false
    }

    private let state: Lock<State>

    package init(_ status: ConnectivityStatus) { state = Lock(State(status: status)) }

    package var status: ConnectivityStatus { state.value.status }

    /// How many tasks are waiting.
    package var count: Int { state.withLock { $0.waiters.count } }

    /// Sets the status; when it is not offline, every waiter resumes.
    package func update(_ status: ConnectivityStatus) {
        let resumed: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.status = status
            guard status != .offline else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Returns once the status is not offline.
    /// - Parameter startPoller: Called (outside the lock) when this waiter is the first while no poller runs: a
    ///   monitor that polls starts its poller there, and ends it when ``keepPolling()`` says so.
    package func waitUntilOnline(startPoller: () -> Void = {}) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            state.pending.insert(state.nextID)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Next {
                    case wait(startingPoller: Bool)
                    case resume, cancel
                }
                let next: Next = state.withLock { state in
                    state.pending.remove(id)
                    if state.cancelled.remove(id) != nil { return .cancel }
                    guard state.status == .offline else { return .resume }
                    state.waiters[id] = continuation
                    guard !state.isPolling else { return .wait(startingPoller: false) }
                    state.isPolling = true
                    return .wait(startingPoller: true)
                }
                switch next {
                case .wait(let starting): if starting { startPoller() }
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
                if state.pending.contains(id) {
                    state.cancelled.insert(id)  // not stored yet: the registration sees this and does not wait
                }
                return state.waiters.removeValue(forKey: id)
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Whether a poller should go on: `false` (and the poller counted as ended) once nobody waits.
    package func keepPolling() -> Bool {
        state.withLock { state in
            guard state.waiters.isEmpty else { return true }
            state.isPolling = false
            return false
        }
    }
}
