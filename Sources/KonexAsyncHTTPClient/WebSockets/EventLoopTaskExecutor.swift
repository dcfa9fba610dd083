#if AsyncHTTPClient
    import NIOCore

    /// A connection's event loop as a `TaskExecutor`: a task that prefers it runs its jobs on the loop's thread, where
    /// the connection's frames arrive and its writes go out without a hop.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    final class EventLoopTaskExecutor: TaskExecutor {
        let eventLoop: any EventLoop

        init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            eventLoop.execute { job.runSynchronously(on: executor) }
        }
    }
#endif
