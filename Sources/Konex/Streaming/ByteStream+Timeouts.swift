import Foundation

extension ByteStream {
    /// Ends the stream with a timeout when no byte arrives for `idle`, or when it has run for `total`, measured on
    /// `clock` from now; the watch ends with the stream (read to its end, failed or cancelled).
    func watch(idle: Duration?, total: Duration?, on clock: any Clock<Duration>) {
        guard idle != nil || total != nil else { return }
        let elapsed = DataRequest.stopwatch(clock)
        let lastArrival = Lock(Duration.zero)
        let buffer = self.buffer
        buffer.onArrival { _ in lastArrival.value = elapsed() }
        let task = Task {
            while !Task.isCancelled && !buffer.isEnded {
                let now = elapsed()
                let idleDeadline = idle.map { lastArrival.value + $0 }
                if let total, now >= total {
                    buffer.fail(
                        StreamFailure(.totalTimeout, "the stream ran longer than its total timeout of \(total)"))
                    return
                }
                if let idle, let idleDeadline, now >= idleDeadline {
                    buffer.fail(StreamFailure(.idleTimeout, "no bytes arrived for \(idle) (the idle timeout)"))
                    return
                }
                let next = [idleDeadline, total].compactMap { $0 }.min()! - now
                do { try await clock.sleep(for: next) } catch { return }
            }
        }
        buffer.onEnd { task.cancel() }
    }
}
