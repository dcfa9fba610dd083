import Foundation

/// Exponential backoff with jitter, shared by ``RetryPolicy`` and ``ReconnectionPolicy``.
///
/// Computed in seconds as `Double` and clamped before it becomes a `Duration`: a multiplier raised to a large attempt
/// count, or a server's `retry:` of eighteen digits, reaches infinity in `Double` and would trap in `Duration`'s
/// integer arithmetic.
enum Backoff {
    /// `base × multiplier^exponent`, at most `maximum`, then spread by `±jitter` of itself (`random` in 0..<1).
    static func delay(
        base: Duration, multiplier: Double, exponent: Int, maximum: Duration, jitter: Double, random: Double
    ) -> Duration {
        let grown = base.seconds * Foundation.pow(multiplier, Double(Swift.max(0, exponent)))
        let capped = Swift.min(grown.isNaN ? 0 : grown, maximum.seconds)
        let spread = capped * jitter * (random * 2 - 1)
        return Duration(clampedSeconds: capped + (spread.isFinite ? spread : 0))
    }
}
