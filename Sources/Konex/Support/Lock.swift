import Synchronization

/// A value guarded by a `Mutex`, as a final class so it can be shared and captured (KonexTesting uses it too).
package final class Lock<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    package init(_ value: Value) { mutex = Mutex(value) }
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }
    package var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}
