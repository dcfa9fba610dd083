import Foundation

/// A value guarded by a lock, as a final class so it can be shared and captured (KonexTesting uses it too).
///
/// Backed by `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: the thread sanitizer intercepts pthread
/// mutexes but cannot see `Mutex`'s futex, and reported every critical section as a race.
package final class Lock<Value: Sendable>: @unchecked Sendable {  // every access to `stored` holds `lock`
    private let lock = NSLock()
    private var stored: Value

    package init(_ value: Value) { stored = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    package var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}
