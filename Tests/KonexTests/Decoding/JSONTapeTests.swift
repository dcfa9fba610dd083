import Foundation
import KonexTesting
import Testing

@testable import Konex

/// The tape decoder answers exactly as `JSONDecoder` does, or leaves the answer to it.
@Suite struct JSONTapeTests {
    struct Small: Codable, Equatable {
        var id: Int
        var title: String
        var done: Bool
    }

    enum Status: String, Codable, Equatable { case draft, published }

    struct Model: Codable, Equatable {
        var id: Int64
        var count: UInt8
        var score: Double
        var name: String
        var flags: [Bool]
        var nickname: String?
        var status: Status
        var tags: [String: Int]
        var children: [Model]
        var nested: [[Int?]]
        var stamp: Date
        var blob: Data
        var link: URL?
        var ratio: Float
    }

    @Test(arguments: [
        #"{"id":1,"title":"Buy milk","done":false}"#,
        " \n{ \"done\" : true , \"title\":\"caf\\u00e9 \\\"quoted\\\" \\n 😀 日本\", \"id\": -42 }\t",
        "\u{FEFF}{\"title\":\"\\uD83D\\uDE00\",\"id\":9007199254740993,\"done\":true,\"extra\":[1,{\"a\":null}]}",
    ])
    func theCommonShapesAreReadOnTheTape(text: String) throws {
        let data = Data(text.utf8)
        let onTape = try data.withUnsafeBytes {
            try JSONTape.decodeOnTape(Small.self, from: $0.bindMemory(to: UInt8.self))
        }
        #expect(onTape == (try JSONDecoder().decode(Small.self, from: data)))
    }

    struct WithFloat: Codable { var value: Float }
    struct WithDate: Codable { var value: Date }
    struct WithData: Codable { var value: Data }
    struct WithURL: Codable { var value: URL }
    struct WithDecimal: Codable { var value: Decimal }
    struct WithInt8: Codable { var value: Int8 }
    struct WithInt: Codable { var value: Int }
    struct WithUInt: Codable { var value: UInt }
    struct WithKey: Codable {
        var value: Int
        enum CodingKeys: String, CodingKey { case value = "välue" }
    }

    /// The type a declining case decodes.
    enum Shape: Sendable {
        case float, date, data, url, decimal, int8, int, uint, nonASCIIKey, jsonArray, json

        var type: any Decodable.Type {
            switch self {
            case .float: WithFloat.self
            case .date: WithDate.self
            case .data: WithData.self
            case .url: WithURL.self
            case .decimal: WithDecimal.self
            case .int8: WithInt8.self
            case .int: WithInt.self
            case .uint: WithUInt.self
            case .nonASCIIKey: WithKey.self
            case .jsonArray: [JSON].self
            case .json: JSON.self
            }
        }
    }

    /// Each case is a document `JSONDecoder` may read by rules the tape does not copy, or refuses.
    @Test(arguments: [
        (#"{"value":1e39}"#, Shape.float), (#"{"value":"yesterday"}"#, .date), (#"{"value":"AA!C"}"#, .data),
        (#"{"value":""}"#, .url), (#"{"value":1.5}"#, .decimal),
        (#"{"value":300}"#, .int8), (#"{"value":1.0}"#, .int), (#"{"value":1e2}"#, .int),
        (#"{"value":-0}"#, .int), (#"{"value":9223372036854775808}"#, .int), (#"{"value":-1}"#, .uint),
        (#"{"value":1,"value":2}"#, .int), (#"{"val\u0075e":1}"#, .int),
        (#"{"välue":1}"#, .nonASCIIKey), (#"{"value":"1"}"#, .int), (#"{"value":null}"#, .int),
        (#"{}"#, .int), (#"{"value":1,}"#, .int), (#"{"value":1} x"#, .int),
        (String(repeating: "[", count: 600) + String(repeating: "]", count: 600), .jsonArray),
        (#"[1.5]"#, .json),
    ])
    func theTapeDeclinesWhereJSONDecoderHasRulesOfItsOwn(text: String, shape: Shape) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(throws: TapeDeclined.self) { try Self.onTape(shape.type, Data(text.utf8), settings: decoder) }
    }

    struct Stamped: Codable, Equatable {
        var when: Date
        var blob: Data
        var link: URL
        var ratio: Float
    }

    /// A decoder's date and data strategies, as the tape applies them.
    enum Strategies: Sendable, CaseIterable {
        case defaults, secondsAndBytes, milliseconds, iso8601, custom

        var decoder: JSONDecoder {
            let decoder = JSONDecoder()
            switch self {
            case .defaults: break
            case .secondsAndBytes:
                decoder.dateDecodingStrategy = .secondsSince1970
                decoder.dataDecodingStrategy = .deferredToData
            case .milliseconds: decoder.dateDecodingStrategy = .millisecondsSince1970
            case .iso8601: decoder.dateDecodingStrategy = .iso8601
            case .custom:
                decoder.dateDecodingStrategy = .custom { decoder in
                    let text = try decoder.singleValueContainer().decode(String.self)
                    return Date(timeIntervalSince1970: Double(text.dropFirst(4)).map { $0 * 86_400 } ?? 0)
                }
                decoder.dataDecodingStrategy = .custom { decoder in
                    Data(try decoder.singleValueContainer().decode(String.self).utf8)
                }
            }
            return decoder
        }

        var document: String {
            let rest = #""link":"https://a.test/x?y=1#z","ratio":0.1"#
            return switch self {
            case .defaults: #"{"when":700000000.5,"blob":"AAEC/w==","# + rest + "}"
            case .secondsAndBytes: #"{"when":1700000000,"blob":[0,1,255],"# + rest + "}"
            case .milliseconds: #"{"when":1700000000123,"blob":"","# + rest + "}"
            case .iso8601: #"{"when":"2026-11-26T16:30:00Z","blob":"AA==","# + rest + "}"
            case .custom: #"{"when":"day:20000","blob":"raw text","# + rest + "}"
            }
        }
    }

    @Test(arguments: Strategies.allCases)
    func datesDataURLsAndFloatsAreReadByJSONDecodersRules(strategies: Strategies) throws {
        let data = Data(strategies.document.utf8)
        let decoder = strategies.decoder
        let onTape = try data.withUnsafeBytes {
            try JSONTape.decodeOnTape(Stamped.self, from: $0.bindMemory(to: UInt8.self), settings: decoder)
        }
        #expect(onTape == (try decoder.decode(Stamped.self, from: data)))
    }

    /// An object that names a member twice is left to JSONDecoder (the tape declines it), at any depth, however far
    /// apart the two are and whatever lies between them; the same name in two different objects is no repeat.
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, true), (#"{"a":{"x":[1,{"y":2}]},"b":[],"a":3}"#, true),
        (#"{"b":1,"a":[{"a":1}],"c":2,"a":null}"#, true), (#"[{"id":1},{"id":2,"t":{},"id":3}]"#, true),
        ("{" + (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + #","k7":0}"#, true),
        (#"{"a":{"a":1},"b":{"a":2},"c":[{"a":3}]}"#, false), (#"{"ab":1,"ba":2,"a":3,"b":4}"#, false),
        ("{" + (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}", false),
    ])
    func anObjectThatRepeatsANameIsDeclined(text: String, repeats: Bool) {
        let declined = Array(text.utf8).withUnsafeBufferPointer { JSONTape.nodes(of: $0) == nil }
        #expect(declined == repeats)
    }

    @Test func aDocumentInUTF16IsLeftToJSONDecoder() throws {
        let data = #"{"value":7}"#.data(using: .utf16LittleEndian)!
        #expect(throws: TapeDeclined.self) { try Self.onTape(WithInt.self, data) }
        #expect(try JSONTape.decode(WithInt.self, from: data, with: JSONDecoder()).value == 7)
    }

    /// A type that catches a failure and tries another reading gets `JSONDecoder`'s answer, not the tape's.
    struct Lenient: Decodable, Equatable {
        var value: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let number = try? container.decode(Int.self, forKey: .value) {
                value = number
            } else {
                value = Int(try container.decode(String.self, forKey: .value)) ?? -1
            }
        }
        enum CodingKeys: CodingKey { case value }
    }

    @Test(arguments: [#"{"value":1.0}"#, #"{"value":"12"}"#, #"{"value":7}"#])
    func aCaughtFailureStillEndsInJSONDecodersAnswer(text: String) throws {
        let data = Data(text.utf8)
        let expected = try JSONDecoder().decode(Lenient.self, from: data)
        #expect(try JSONTape.decode(Lenient.self, from: data, with: JSONDecoder()) == expected)
    }

    /// Errors are `JSONDecoder`'s own: same case, same coding path, same words.
    @Test(arguments: [
        #"{"id":1,"title":"a"}"#, #"{"id":"1","title":"a","done":true}"#, #"{"id":1,"title":null,"done":true}"#,
        #"{"id":1,"title":"a","done":true"#, #"[{"id":1}]"#, "",
    ])
    func errorsAreJSONDecodersOwn(text: String) {
        let data = Data(text.utf8)
        let viaTape = #expect(throws: DecodingError.self) {
            try JSONTape.decode(Small.self, from: data, with: JSONDecoder())
        }
        let direct = #expect(throws: DecodingError.self) { try JSONDecoder().decode(Small.self, from: data) }
        #expect(viaTape.map { String(describing: $0) } == direct.map { String(describing: $0) })
    }

    @Test func aDecoderWithOtherKeyRulesOrASubclassIsNotReplaced() throws {
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        struct Named: Codable, Equatable { var firstName: String }
        let data = Data(#"{"first_name":"Ada"}"#.utf8)
        #expect(try JSONTape.decode(Named.self, from: data, with: snake) == Named(firstName: "Ada"))

        final class Counting: JSONDecoder, @unchecked Sendable {
            nonisolated(unsafe) var calls = 0
            override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
                calls += 1
                return try super.decode(type, from: data)
            }
        }
        let counting = Counting()
        _ = try JSONTape.decode(Small.self, from: Data(#"{"id":1,"title":"a","done":true}"#.utf8), with: counting)
        #expect(counting.calls == 1)
    }

    /// A decoder kept past the decode cannot read freed bytes: it declines.
    @Test func aDecoderKeptAfterTheDecodeRefusesToRead() throws {
        final class Keeper: Decodable {
            let decoder: any Decoder
            init(from decoder: any Decoder) throws { self.decoder = decoder }
        }
        let kept = try JSONTape.decode(Keeper.self, from: Data(#"{"a":1}"#.utf8), with: JSONDecoder())
        if kept.decoder is TapeDecoder {
            #expect(throws: (any Error).self) { try kept.decoder.container(keyedBy: JSONTapeTests.AnyKey.self) }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Random models, encoded by `JSONEncoder`, then each document corrupted by one byte: the tape and
    /// `JSONDecoder` agree on every one, and the tape reads every uncorrupted one itself.
    @Test func randomModelsAndTheirCorruptionsDecodeAsJSONDecoderDecodesThem() throws {
        let seed =
            ProcessInfo.processInfo.environment["KONEX_PROPERTY_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
        var random = SeededGenerator(seed: seed)
        let encoder = JSONEncoder()
        var agreedOnCorrupted = 0
        for index in 0..<400 {
            let model = Self.model(depth: 0, using: &random)
            let data = try encoder.encode(model)
            let context =
                "seed \(seed) (KONEX_PROPERTY_SEED replays it), model \(index): \(String(decoding: data, as: UTF8.self))"
            do {
                let onTape = try data.withUnsafeBytes {
                    try JSONTape.decodeOnTape(Model.self, from: $0.bindMemory(to: UInt8.self))
                }
                #expect(onTape == model, "\(context)")
            } catch {
                Issue.record("\(context): the tape declined (\(error))")
            }
            var corrupted = data
            let at = Int.random(in: 0..<corrupted.count, using: &random)
            corrupted[corrupted.startIndex + at] = [0x22, 0x2C, 0x7D, 0x5D, 0x30, 0x2E, 0x5C, 0xFF, 0x20, 0x61]
                .randomElement(using: &random)!
            let direct = Result { try JSONDecoder().decode(Model.self, from: corrupted) }
            let viaTape = Result { try JSONTape.decode(Model.self, from: corrupted, with: JSONDecoder()) }
            switch (direct, viaTape) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(context), byte \(at)")
                agreedOnCorrupted += 1
            case (.failure, .failure):
                // Not compared: `JSONDecoder` reads `tags` in the dictionary's order, which differs from one
                // instance to the next, so two runs of it can name different failures of one document.
                agreedOnCorrupted += 1
            default:
                Issue.record("\(context), byte \(at): JSONDecoder \(direct), tape \(viaTape)")
            }
        }
        #expect(agreedOnCorrupted == 400)
    }

    /// Random JSON text as servers write it (escapes, number forms, whitespace), read as ``JSON``: the same tree
    /// either way, and the tape reads a good share itself.
    @Test func randomJSONTextReadsAsJSONDecoderReadsIt() throws {
        let seed =
            ProcessInfo.processInfo.environment["KONEX_PROPERTY_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
        var generator = JSONTextGenerator(random: SeededGenerator(seed: seed))
        var readOnTape = 0
        for index in 0..<1_000 {
            let data = Data(generator.document().text.utf8)
            let expected = try JSONDecoder().decode(JSON.self, from: data)
            #expect(
                try JSONTape.decode(JSON.self, from: data, with: JSONDecoder()) == expected, "seed \(seed), \(index)")
            if (try? Self.onTape(JSON.self, data)) != nil { readOnTape += 1 }
        }
        // Escaped or non-ASCII names and fractions send many documents to JSONDecoder; plain ones stay.
        #expect(readOnTape > 50, "seed \(seed)")
    }

    private static func onTape(_ type: any Decodable.Type, _ data: Data, settings: JSONDecoder? = nil) throws -> Any {
        try data.withUnsafeBytes {
            try JSONTape.decodeOnTape(type, from: $0.bindMemory(to: UInt8.self), settings: settings)
        }
    }

    private static func model(depth: Int, using random: inout SeededGenerator) -> Model {
        let strings = ["", "a", "café", "日本語", "😀", "quote \" and \\ backslash", "line\nbreak\t", "\u{0}\u{1F}", "/"]
        func string() -> String {
            (0..<Int.random(in: 0...3, using: &random)).map { _ in strings.randomElement(using: &random)! }.joined()
        }
        return Model(
            id: Int64.random(in: -999_999_999_999_999_999...999_999_999_999_999_999, using: &random),
            count: UInt8.random(in: 0...255, using: &random),
            score: [
                0, -0.0, 1.5, 0.1, 1e-7, -3.25e12, Double.random(in: -1e6...1e6, using: &random),
                1.7976931348623157e308,
            ]
            .randomElement(using: &random)!,
            name: string(),
            flags: (0..<Int.random(in: 0...3, using: &random)).map { _ in Bool.random(using: &random) },
            nickname: Bool.random(using: &random) ? nil : string(),
            status: Bool.random(using: &random) ? .draft : .published,
            tags: Dictionary(
                uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map {
                    ("k\($0)", Int.random(in: -5...5, using: &random))
                }),
            children: depth < 2
                ? (0..<Int.random(in: 0...2, using: &random)).map { _ in model(depth: depth + 1, using: &random) } : [],
            nested: [[1, nil], [], [Int.random(in: Int.min / 2...Int.max / 2, using: &random)]],
            stamp: Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &random)),
            blob: Data(
                (0..<Int.random(in: 0...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }),
            link: [
                nil, URL(string: "https://a.test/p?q=1"), URL(string: "relative/path"), URL(string: "mailto:a@b.test"),
            ]
            .randomElement(using: &random)!,
            ratio: [0, 0.1, -1.5e-20, 3.4e38, Float.random(in: -1e6...1e6, using: &random)].randomElement(
                using: &random)!)
    }
}

extension JSONTapeTests {
    /// A key path is followed on the tape; one that leads nowhere gets the scanner's error, as before.
    @Test(arguments: ["data.items", "data.items.1", "meta", "data.missing", "data.items.9", "data.items.x", "meta.0"])
    func aKeyPathIsFollowedOnTheTapeAndAMissOnesTheScannersError(path: String) throws {
        let data = Data(
            #"{"meta":{"n":2},"data":{"items":[{"id":1,"title":"a","done":true},{"id":2,"title":"b","done":false}]}}"#
                .utf8)
        let keyPath = JSONKeyPath(path)
        let viaTape = Result { try JSONTape.decode(JSON.self, from: data, at: keyPath, with: JSONDecoder()) }
        let expected = Result {
            try JSONDecoder().decode(JSON.self, from: data[try JSONScanner.range(of: keyPath, in: data)])
        }
        switch (viaTape, expected) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(String(describing: a) == String(describing: b))
        default: Issue.record("tape \(viaTape), expected \(expected)")
        }
        if case .success = expected {
            let onTape = try data.withUnsafeBytes {
                try JSONTape.decodeOnTape(JSON.self, from: $0.bindMemory(to: UInt8.self), at: keyPath)
            }
            #expect(try onTape == expected.get())
        }
    }
}

/// Trust pass 3, item 11: the three ways a differential run against `JSONDecoder` found the tape's answer to differ.
@Suite struct JSONTapePromiseTests {
    /// A model that catches its own decoding error, so a wrong error from the tape would become a wrong value.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    struct CatchingWide: Decodable, Equatable {
        var signed: Int128?
        var unsigned: UInt128?
        var single: Int128?
        enum CodingKeys: String, CodingKey { case signed, unsigned, list }
        struct Single: Decodable {
            var value: Int128?
            init(from decoder: any Decoder) throws { value = try? decoder.singleValueContainer().decode(Int128.self) }
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            signed = try? container.decode(Int128.self, forKey: .signed)
            unsigned = try? container.decode(UInt128.self, forKey: .unsigned)
            var list = try container.nestedUnkeyedContainer(forKey: .list)
            single = try? list.decode(Single.self).value
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    struct CatchingUnkeyed: Decodable, Equatable {
        var first: Int128?
        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            first = try? list.decode(Int128.self)
        }
    }

    @Test func a128BitIntegerIsJSONDecodersToRead() throws {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
        let data = Data(#"{"signed": -5, "unsigned": 170141183460469231731687303715884105728, "list": [7]}"#.utf8)
        let expected = try JSONDecoder().decode(CatchingWide.self, from: data)
        #expect(try JSONTape.decode(CatchingWide.self, from: data, with: JSONDecoder()) == expected)
        let list = Data("[5]".utf8)
        let first = try JSONDecoder().decode(CatchingUnkeyed.self, from: list)
        #expect(try JSONTape.decode(CatchingUnkeyed.self, from: list, with: JSONDecoder()) == first)
        // On the tape alone, each of them declines rather than answers.
        #expect(throws: TapeDeclined.self) {
            try data.withUnsafeBytes {
                try JSONTape.decodeOnTape(CatchingWide.self, from: $0.bindMemory(to: UInt8.self))
            }
        }
    }

    @Test(arguments: ["0e1", "0E1", "0.00e5", "-0.0e1", "0e0", "-0E+2", "0.0", "-0", "0", "1e-400"])
    func aZeroWithAnExponentIsJSONDecodersToJudge(number: String) throws {
        let data = Data("[\(number)]".utf8)
        let reference = Result { try JSONDecoder().decode([Double].self, from: data) }
        let konex = Result { try JSONTape.decode([Double].self, from: data, with: JSONDecoder()) }
        switch (reference, konex) {
        case (.success(let a), .success(let b)):
            #expect(a.map(\.bitPattern) == b.map(\.bitPattern), "\(number)")
        case (.failure, .failure): break
        default: Issue.record("\(number): JSONDecoder \(reference), Konex \(konex)")
        }
        let floats = Result { try JSONDecoder().decode([Float].self, from: data) }
        let konexFloats = Result { try JSONTape.decode([Float].self, from: data, with: JSONDecoder()) }
        #expect((try? floats.get()) == (try? konexFloats.get()), "\(number)")
    }

    /// KELVIN SIGN is canonically the letter K: `JSONDecoder` finds one under the other, and so does a key path.
    @Test(arguments: [
        (#"{"K": {"v": 5}}"#, "\u{212A}.v"), ("{\"\u{212A}\": {\"v\": 5}}", "K.v"), (#"{"\u212A": {"v": 5}}"#, "K.v"),
        (#"{"é": {"v": 5}}"#, "e\u{301}.v"),
    ])
    func aKeyPathKeyFindsAUnicodeEqualName(document: String, path: String) throws {
        let data = Data(document.utf8)
        #expect(try JSONTape.decode(Int.self, from: data, at: JSONKeyPath(path), with: JSONDecoder()) == 5, "\(path)")
        // As JSONDecoder finds it with the same key.
        struct Key: CodingKey {
            var stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        struct Outer: Decodable {
            var value: Int
            init(from decoder: any Decoder) throws {
                let first = (decoder.userInfo[CodingUserInfoKey(rawValue: "first")!] as? String) ?? ""
                let inner = try decoder.container(keyedBy: Key.self).nestedContainer(
                    keyedBy: Key.self, forKey: Key(stringValue: first))
                value = try inner.decode(Int.self, forKey: Key(stringValue: "v"))
            }
        }
        let decoder = JSONDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "first")!] = String(path.split(separator: ".")[0])
        #expect(try decoder.decode(Outer.self, from: data).value == 5)
    }
}

/// Arrays of primitives (`[Double]`, `[Int]`, `[Int64]`, `[String]`) are read in one loop on the tape: the same
/// values as `JSONDecoder`'s, optional members included, and anything it would judge otherwise left to it.
@Suite struct TapePrimitiveArrayTests {
    struct Arrays: Decodable, Equatable {
        var doubles: [Double]
        var ints: [Int]
        var longs: [Int64]?
        var strings: [String]
        var nested: [[Double]]
    }

    @Test(arguments: [
        #"{"doubles":[1,-2.5,3e2,0.1],"ints":[1,-2,3],"longs":[9007199254740993],"strings":["a","\u00e9\n"],"nested":[[1,2],[]]}"#,
        #"{"doubles":[],"ints":[],"strings":[],"nested":[]}"#,
        #"{"doubles":[1],"ints":[1],"longs":null,"strings":["x"],"nested":[[0.5]]}"#,
    ])
    func theyReadAsJSONDecoderReadsThem(text: String) throws {
        let data = Data(text.utf8)
        let expected = try JSONDecoder().decode(Arrays.self, from: data)
        let onTape = try data.withUnsafeBytes {
            try JSONTape.decodeOnTape(Arrays.self, from: $0.bindMemory(to: UInt8.self), settings: JSONDecoder())
        }
        #expect(onTape == expected)
    }

    @Test(arguments: [
        #"{"doubles":[1,null],"ints":[],"strings":[],"nested":[]}"#,
        #"{"doubles":[],"ints":[1,2.0],"strings":[],"nested":[]}"#,
        #"{"doubles":[],"ints":[],"strings":["a",1],"nested":[]}"#,
        #"{"doubles":[],"ints":[],"strings":[],"nested":[[1],"x"]}"#,
        #"{"doubles":{"a":1},"ints":[],"strings":[],"nested":[]}"#,
    ])
    func whatTheTapeCannotVouchForGetsJSONDecodersAnswer(text: String) throws {
        let data = Data(text.utf8)
        let onTape = try? data.withUnsafeBytes {
            try JSONTape.decodeOnTape(Arrays.self, from: $0.bindMemory(to: UInt8.self), settings: JSONDecoder())
        }
        #expect(onTape == nil)
        let direct = Result { try JSONDecoder().decode(Arrays.self, from: data) }
        let viaTape = Result { try JSONTape.decode(Arrays.self, from: data, with: JSONDecoder()) }
        #expect(String(describing: viaTape) == String(describing: direct))
    }
}
