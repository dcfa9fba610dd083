import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// User-space instructions retired by every thread of this process, read from the CPU's counters through
/// `perf_event_open(2)`: a figure that does not move with the machine's load, unlike wall and CPU time.
///
/// One counter per thread that exists when counting starts (the concurrency and dispatch pools are warm by then, and
/// a thread born later is not counted). Where the kernel has no hardware counters — a virtual machine without a
/// virtual PMU reports "PMU not available due to virtualization" at boot — opening fails and ``unavailable`` says why,
/// so the benchmark prints that instead of a number.
final class InstructionCounter {
    private var descriptors: [Int32] = []

    /// Why counting is not possible here, or `nil` when it is.
    static let unavailable: String? = {
        #if os(Linux)
            switch open(thread: 0) {
            case .success(let descriptor):
                close(descriptor)
                return nil
            case .failure(let failure):
                return failure.reason
            }
        #else
            return "perf_event_open is Linux only"
        #endif
    }()

    /// Starts counting on every current thread of the process; `nil` when the kernel cannot count.
    static func start() -> InstructionCounter? {
        #if os(Linux)
            guard unavailable == nil else { return nil }
            let counter = InstructionCounter()
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            for thread in threads.compactMap(Int32.init) {
                if case .success(let descriptor) = open(thread: thread) { counter.descriptors.append(descriptor) }
            }
            return counter
        #else
            return nil
        #endif
    }

    /// Instructions counted since ``start()``, over all the threads it saw.
    func total() -> UInt64 {
        #if os(Linux)
            return descriptors.reduce(0) { sum, descriptor in
                var value: UInt64 = 0
                return read(descriptor, &value, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size
                    ? sum + value : sum
            }
        #else
            return 0
        #endif
    }

    deinit {
        #if os(Linux)
            for descriptor in descriptors { close(descriptor) }
        #endif
    }

    #if os(Linux)
        struct Unavailable: Error {
            let reason: String
        }

        /// `syscall(2)` is variadic, which Swift cannot call directly; its address called with fixed integer arguments
        /// follows the same convention on x86-64 and arm64 Linux.
        private typealias Syscall = @convention(c) (Int, UnsafeRawPointer, Int32, Int32, Int32, UInt) -> Int
        private static let syscall: Syscall? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syscall").map {
            unsafeBitCast($0, to: Syscall.self)
        }

        /// Opens an enabled counter of user-space instructions on `thread` (0: the calling thread), on any CPU.
        private static func open(thread: Int32) -> Swift.Result<Int32, Unavailable> {
            guard let syscall else { return .failure(Unavailable(reason: "syscall(2) not found")) }
            #if arch(x86_64)
                let perfEventOpen = 298
            #elseif arch(arm64)
                let perfEventOpen = 241
            #else
                return .failure(Unavailable(reason: "no perf_event_open number known for this architecture"))
            #endif
            // struct perf_event_attr, first version (64 bytes): type, size, config, then the flag bits at byte 40.
            var attributes = [UInt8](repeating: 0, count: 64)
            attributes.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: UInt32(0), toByteOffset: 0, as: UInt32.self)  // PERF_TYPE_HARDWARE
                raw.storeBytes(of: UInt32(64), toByteOffset: 4, as: UInt32.self)  // PERF_ATTR_SIZE_VER0
                raw.storeBytes(of: UInt64(1), toByteOffset: 8, as: UInt64.self)  // PERF_COUNT_HW_INSTRUCTIONS
                // exclude_kernel (bit 5) and exclude_hv (bit 6): user-space instructions only.
                raw.storeBytes(of: UInt64(1 << 5 | 1 << 6), toByteOffset: 40, as: UInt64.self)
            }
            let descriptor = attributes.withUnsafeBytes { raw in
                syscall(perfEventOpen, raw.baseAddress!, thread, -1, -1, 0)
            }
            guard descriptor >= 0 else {
                let code = errno
                let hint =
                    code == ENOENT || code == EOPNOTSUPP
                    ? " (no hardware counters: a virtual machine without a virtual PMU)"
                    : code == EACCES || code == EPERM ? " (kernel.perf_event_paranoid forbids it)" : ""
                return .failure(Unavailable(reason: "perf_event_open: \(String(cString: strerror(code)))\(hint)"))
            }
            return .success(Int32(descriptor))
        }
    #endif
}
