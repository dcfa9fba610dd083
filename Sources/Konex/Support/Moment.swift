/// A moment on the continuous clock, of a size known when Konex is compiled.
///
/// `ContinuousClock.Instant` is not frozen: the compiler learns its size only at run time, so each one an async
/// function keeps is a task allocation of its own and each copy goes through its value witnesses. The pipeline's
/// frames keep their moments as this instead (a `Duration` since a fixed instant of the process): four such
/// allocations a request fewer.
struct Moment: Sendable {
    /// The time since ``reference``.
    let sinceReference: Duration

    /// The instant every moment is counted from: the first one asked for.
    private static let reference = ContinuousClock.now

    /// Now.
    static var now: Moment { Moment(sinceReference: ContinuousClock.now - reference) }

    /// The time from `earlier` to `later`.
    static func - (later: Moment, earlier: Moment) -> Duration { later.sinceReference - earlier.sinceReference }
}
