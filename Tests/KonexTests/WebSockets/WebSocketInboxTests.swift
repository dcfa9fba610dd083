import Foundation
import KonexTesting
import Testing

@testable import Konex

/// The receiving half of every WebSocket: pings and the reader, cancelled one at a time and at any moment.
@Suite struct WebSocketInboxTests {
    /// Trust pass 3, item 6: cancelling one ping ends that ping alone.
    @Test func cancellingOnePingLeavesTheOthersWaitingForTheirPong() async throws {
        let inbox = WebSocketInbox(limit: 4)
        let sent = Lock(0)
        let first = Task { try await inbox.awaitPong { sent.withLock { $0 += 1 } } }
        let second = Task { try await inbox.awaitPong { sent.withLock { $0 += 1 } } }
        try await WaitTimeout.wait(for: "both pings sent; \(sent.value) sent") { sent.value == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        // The second ping still waits: only a pong ends it, and it ends well.
        try await Task.sleep(for: .milliseconds(20))
        inbox.pongArrived()
        try await second.value
    }

    /// A ping whose task was cancelled before it registered sends nothing and ends at once instead of waiting for
    /// a pong that may never come.
    @Test func aPingCancelledBeforeItRegistersEndsAtOnce() async throws {
        let inbox = WebSocketInbox(limit: 4)
        let sent = Lock(0)
        let ended = Lock(false)
        let ping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            defer { ended.withLock { $0 = true } }
            try await inbox.awaitPong { sent.withLock { $0 += 1 } }
        }
        do {
            // A generous hang detector: before the fix the ping waited for a pong for ever.
            try await WaitTimeout.wait(for: "the cancelled ping to end") { ended.value }
        } catch {
            inbox.pongArrived()  // unstick it, so the failure below is reported instead of a hang
            Issue.record("a ping cancelled before it registered kept waiting")
        }
        await #expect(throws: CancellationError.self) { try await ping.value }
        #expect(sent.value == 0)
    }

    @Test func aReaderCancelledBeforeItWaitsEndsAtOnce() async throws {
        let inbox = WebSocketInbox(limit: 4)
        let ended = Lock(false)
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            defer { ended.withLock { $0 = true } }
            return try await inbox.receive()
        }
        do {
            try await WaitTimeout.wait(for: "the cancelled reader to end") { ended.value }
        } catch {
            inbox.finish(.closed(.normalClosure, reason: nil))
            Issue.record("a reader cancelled before it waited kept waiting")
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
        // A message already queued is still read by a reader that is not cancelled.
        _ = inbox.deliver(.text("queued"))
        #expect(try await inbox.receive() == .text("queued"))
    }
}
