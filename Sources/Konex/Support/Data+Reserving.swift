import Foundation

extension Data {
    /// The most a body reserves up front, however large the length a peer announced.
    package static let largestReservation = 8 << 20

    /// An empty buffer with room for a body of `announcedLength` bytes, up to ``largestReservation``: a peer's
    /// `Content-Length` is a hint for speed, never a size to allocate on trust.
    /// - Parameter announcedLength: The length the peer announced; zero, negative or `nil` reserves nothing.
    package init(reservingFor announcedLength: Int64?) {
        self.init()
        if let announcedLength, announcedLength > 0 {
            reserveCapacity(Int(Swift.min(announcedLength, Int64(Self.largestReservation))))
        }
    }
}
