import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

#if canImport(Glibc)
    import Glibc
#endif

/// The monitors: waiters that wake and cancel cleanly, the interface reading's rules, one poller for every waiter,
/// and (on Linux) the real interfaces of a network namespace going from nothing to a routable address.
@Suite struct ConnectivityMonitorTests {
    @Test func aThousandWaitersWakeWhenThePathIsBackAndTheCancelledOnesEndAtOnce() async throws {
        let monitor = MockConnectivityMonitor(.offline)
        var generator = SeededGenerator(seed: 48)
        let cancelled = (0..<1_000).map { _ in Bool.random(using: &generator) }
        let waiters = (0..<1_000).map { _ in
            Task { () -> Bool in
                do {
                    try await monitor.waitUntilOnline()
                    return true
                } catch {
                    return false
                }
            }
        }
        // Some are cancelled before they wait, some while they wait.
        for (index, waiter) in waiters.enumerated() where cancelled[index] && index % 2 == 0 { waiter.cancel() }
        try await monitor.waitForWaiters(cancelled.enumerated().filter { !$0.element || $0.offset % 2 == 1 }.count)
        for (index, waiter) in waiters.enumerated() where cancelled[index] && index % 2 == 1 { waiter.cancel() }
        monitor.set(.unknown)  // not offline: the request may go
        for (index, waiter) in waiters.enumerated() {
            #expect(await waiter.value == !cancelled[index], "waiter \(index)")
        }
        #expect(monitor.waiterCount == 0)
    }

    @Test func anOnlineMonitorDoesNotMakeAnyoneWait() async throws {
        let monitor = MockConnectivityMonitor(.online)
        try await monitor.waitUntilOnline()
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await MockConnectivityMonitor(.offline).waitUntilOnline()
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
    }

    @Test func theInterfaceRulesCountOnlyAnUpRunningNonLoopbackInterfaceWithARoutableAddress() {
        typealias Interface = InterfaceConnectivityMonitor.Interface
        func status(_ interfaces: Interface...) -> ConnectivityStatus {
            InterfaceConnectivityMonitor.status(of: interfaces)
        }
        let lan = Interface(isUp: true, isRunning: true, isLoopback: false, address: [192, 0, 2, 2])
        #expect(status(lan) == .online)
        #expect(status() == .offline)
        #expect(status(Interface(isUp: true, isRunning: true, isLoopback: true, address: [127, 0, 0, 1])) == .offline)
        #expect(status(Interface(isUp: false, isRunning: true, isLoopback: false, address: [10, 0, 0, 2])) == .offline)
        #expect(status(Interface(isUp: true, isRunning: false, isLoopback: false, address: [10, 0, 0, 2])) == .offline)
        #expect(
            status(Interface(isUp: true, isRunning: true, isLoopback: false, address: [169, 254, 3, 4])) == .offline)
        #expect(status(Interface(isUp: true, isRunning: true, isLoopback: false, address: [0, 0, 0, 0])) == .offline)
        let linkLocal6: [UInt8] = [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1]
        #expect(status(Interface(isUp: true, isRunning: true, isLoopback: false, address: linkLocal6)) == .offline)
        let global6: [UInt8] = [0xFD, 0x00] + Array(repeating: 0, count: 13) + [2]
        #expect(status(Interface(isUp: true, isRunning: true, isLoopback: false, address: global6)) == .online)
    }

    @Test func oneQuietPollerServesEveryWaiterAndEndsWithThem() async throws {
        let clock = ManualClock()
        let reading = Lock(ConnectivityStatus.offline)
        let reads = Lock(0)
        let monitor = InterfaceConnectivityMonitor(pollInterval: .seconds(1), clock: clock) {
            reads.withLock { $0 += 1 }
            return reading.value
        }
        #expect(monitor.status == .offline)
        let waiters = (0..<100).map { _ in Task { try await monitor.waitUntilOnline() } }
        try await clock.waitForSleepers()
        try await Task.sleep(for: .milliseconds(50))
        #expect(clock.sleeperCount == 1, "one poller for a hundred waiters")
        clock.advance(by: .seconds(1))
        try await clock.waitForSleepers()  // read offline: the poller sleeps again
        reading.value = .online
        clock.advance(by: .seconds(1))
        for waiter in waiters { try await waiter.value }
        try await WaitTimeout.wait(for: "the poller to end", timeout: .seconds(120)) { clock.sleeperCount == 0 }
        let readsSoFar = reads.value
        #expect(readsSoFar < 110, "\(readsSoFar) reads: one per waiter at most, and one per poll")
        // Nobody waits: nothing polls.
        clock.advance(by: .seconds(10))
        #expect(reads.value == readsSoFar)
    }

    @Test func aStormOfStatusQuestionsReadsTheInterfacesOnceAWhile() async throws {
        let clock = ManualClock()
        let reads = Lock(0)
        let monitor = InterfaceConnectivityMonitor(pollInterval: .seconds(1), clock: clock) {
            reads.withLock { $0 += 1 }
            return .offline
        }
        for _ in 0..<1_000 { #expect(monitor.status == .offline) }
        #expect(reads.value == 1, "\(reads.value) reads for 1,000 questions within 250 ms")
        clock.advance(by: .milliseconds(300))
        _ = monitor.status
        #expect(reads.value == 2)
    }

    @Test func aPollIntervalOfZeroDoesNotSpin() async throws {
        let clock = ManualClock()
        let reads = Lock(0)
        let monitor = InterfaceConnectivityMonitor(pollInterval: .zero, clock: clock) {
            reads.withLock { $0 += 1 }
            return .offline
        }
        #expect(monitor.pollInterval == .milliseconds(10))
        let waiter = Task { try await monitor.waitUntilOnline() }
        try await clock.waitForSleepers()
        try await Task.sleep(for: .milliseconds(100))
        #expect(reads.value <= 2, "\(reads.value) reads while the virtual clock stood still")
        waiter.cancel()
        _ = await waiter.result
    }

    #if os(Linux)
        /// A new network namespace has only a loopback interface, down: offline. Loopback up is still offline; a
        /// veth pair with `10.9.9.9/24` is online. The interfaces are the kernel's, read by `getifaddrs` on a thread
        /// moved into the namespace (a network namespace belongs to a thread; `ip` started from it inherits it).
        @Test func theInterfacesOfANewNetworkNamespaceGoFromOfflineToOnline() async throws {
            let readings = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<[ConnectivityStatus], any Error>) in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try Self.readingsInANewNamespace() })
                }
            }
            #expect(readings == [.offline, .offline, .online])
        }

        static func readingsInANewNamespace() throws -> [ConnectivityStatus] {
            typealias Unshare = @convention(c) (Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "unshare") else {
                throw POSIXError(.ENOSYS)
            }
            let newNetworkNamespace: Int32 = 0x4000_0000  // CLONE_NEWNET
            guard unsafeBitCast(symbol, to: Unshare.self)(newNetworkNamespace) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
            }
            var readings = [InterfaceConnectivityMonitor.readInterfaces()]
            try ip("link", "set", "lo", "up")
            readings.append(InterfaceConnectivityMonitor.readInterfaces())
            try ip("link", "add", "konex0", "type", "veth", "peer", "name", "konex1")
            try ip("addr", "add", "10.9.9.9/24", "dev", "konex0")
            try ip("link", "set", "konex1", "up")
            try ip("link", "set", "konex0", "up")
            // The kernel raises IFF_RUNNING when it sees the carrier, from its link-watch work, which it may defer
            // by up to a second after `ip` returns (a CI run read offline here once): wait for it, with a margin
            // far above a loaded machine's stalls.
            let deadline = Date().addingTimeInterval(30)
            var last = InterfaceConnectivityMonitor.readInterfaces()
            while last != .online && Date() < deadline {
                usleep(20_000)
                last = InterfaceConnectivityMonitor.readInterfaces()
            }
            readings.append(last)
            return readings
        }

        /// Runs `ip` (iproute2; scripts/test installs it) on this thread's namespace and fails unless it succeeds.
        /// `posix_spawn` and `waitpid`, not `Process`: Foundation watches its children from a thread of its own,
        /// which a child started from the namespace never reported to (the test hung).
        static func ip(_ arguments: String...) throws {
            guard
                let path = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first(where: {
                    FileManager.default.isExecutableFile(atPath: $0)
                })
            else { throw ConnectivityTestError("no `ip` on this machine: scripts/test installs iproute2") }
            let argv: [UnsafeMutablePointer<CChar>?] = (["ip"] + arguments).map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, path, nil, nil, argv, environ)
            guard spawned == 0 else { throw ConnectivityTestError("posix_spawn \(path): errno \(spawned)") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            guard status == 0 else {
                throw ConnectivityTestError("ip \(arguments.joined(separator: " ")) ended with status \(status)")
            }
        }

        struct ConnectivityTestError: Error, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }
    #endif
}
