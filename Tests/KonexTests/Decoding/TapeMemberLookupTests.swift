import Foundation
import Testing

@testable import Konex

/// Members found in any order: the search starts after the member found last and wraps around, so keys read in the
/// document's order cost one look each, and keys read out of order, twice, or not there are still found (or not) as
/// `JSONDecoder` finds them.
@Suite struct TapeMemberLookupTests {
    /// Reads the keys `k0`…`k(n-1)` in the order the decoder's `userInfo` gives, some twice, with `contains` and
    /// `decodeIfPresent` of a key that is not there between them.
    struct Ordered: Decodable, Equatable {
        static let order = CodingUserInfoKey(rawValue: "order")!
        var values: [Int]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let order = decoder.userInfo[Self.order] as? [Int] ?? []
            let container = try decoder.container(keyedBy: Key.self)
            values = []
            for index in order {
                values.append(try container.decode(Int.self, forKey: Key(stringValue: "k\(index)")))
                _ = container.contains(Key(stringValue: "absent"))
                values.append(try container.decodeIfPresent(Int.self, forKey: Key(stringValue: "none")) ?? -1)
            }
        }
    }

    @Test(arguments: [1, 2, 7, 40])
    func keysInAnyOrderAreFoundAsJSONDecoderFindsThem(count: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let text = "{" + (0..<count).map { #""k\#($0)": \#($0 * 10)"# }.joined(separator: ",") + "}"
        let data = Data(text.utf8)
        let orders = [
            Array(0..<count), Array((0..<count).reversed()), (0..<count).shuffled(using: &generator),
            (0..<count).flatMap { [$0, $0] }, [count - 1, 0, count - 1, 0],
        ]
        for order in orders {
            let decoder = JSONDecoder()
            decoder.userInfo[Ordered.order] = order
            let onTape = try data.withUnsafeBytes {
                try JSONTape.decodeOnTape(Ordered.self, from: $0.bindMemory(to: UInt8.self), settings: decoder)
            }
            #expect(onTape == (try decoder.decode(Ordered.self, from: data)), "order \(order)")
        }
    }
}
