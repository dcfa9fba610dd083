import Foundation
import Testing

@testable import Konex

@Suite struct JSONTests {
    @Test(arguments: [
        "9007199254740992",  // 2^53
        "9007199254740993",  // 2^53 + 1: a Double would round it
        "9223372036854775807",  // Int64.max
        "-9223372036854775808",  // Int64.min
    ])
    func largeIntegersStayExact(text: String) throws {
        let value = try JSONDecoder().decode(JSON.self, from: Data(text.utf8))
        #expect(value == .int(Int64(text)!))
        #expect(value.int64Value == Int64(text))
        #expect(String(decoding: try JSONEncoder().encode(value), as: UTF8.self) == text)
        #expect(
            URLEncoding.default.percentEncodedQuery(["id": value]) == "id="
                + text.replacingOccurrences(of: "-", with: "-"))
    }

    @Test func intsAreWrittenTheSameWayWhateverTheirType() {
        let page = 2
        #expect(JSON.int(page) == .int(Int64(2)))
        #expect(JSON(integerLiteral: 2) == .int(2))
        #expect(JSON.int(Int64(1) << 40).intValue == Int(exactly: Int64(1) << 40))
        #expect(JSON.int(7).doubleValue == 7)
    }
}
