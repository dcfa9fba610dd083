import Foundation

/// A `Content-Length` field read as RFC 9110 §8.6 and the Fetch standard's "extract a length" read it: one length, or a
/// list of the same length repeated (`42, 42`), each `1*DIGIT` between optional spaces and tabs.
enum ContentLength: Equatable {
    /// The body's length.
    case length(Int64)
    /// A list of different lengths (`10, 4`): nothing says where the body ends.
    case conflicting
    /// Not a length: an empty element (`30,`), a sign, a suffix or another base (`+30`, `30s`, `0x20`), or more digits
    /// than a length has. A client that read it by its leading digits would take part of a body for all of it.
    case invalid

    /// Reads `field`, the field's whole value (repeated field lines joined with commas).
    init(_ field: String) {
        var length: Int64?
        for element in field.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let digits = element.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
                self = .invalid
                return
            }
            let value = digits.reversed().reduce(Int64(0)) { $0 * 10 + Int64($1 &- UInt8(ascii: "0")) }
            if let length, length != value {
                self = .conflicting
                return
            }
            length = value
        }
        self = length.map(ContentLength.length) ?? .invalid
    }
}
