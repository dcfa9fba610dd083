import Foundation

@testable import Konex
@testable import KonexTesting

/// The target this process fuzzes, from `KONEX_FUZZ_TARGET` (libFuzzer owns the command line).
nonisolated(unsafe) let target = ProcessInfo.processInfo.environment["KONEX_FUZZ_TARGET"] ?? ""

/// A fixed wall clock, so a run is reproducible from its input alone.
let now = Date(timeIntervalSince1970: 1_800_000_000)

/// libFuzzer's entry point: one input, one target. A crash, a trap, a sanitizer report or a failed `check` is a
/// finding; libFuzzer saves the input that caused it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { Data(bytes: $0, count: count) } ?? Data()
    let text = String(decoding: bytes, as: UTF8.self)
    switch target {
    case "httpdate": FuzzTargets.httpDate(text)
    case "cachecontrol": FuzzTargets.cacheControl(text)
    case "retryafter": FuzzTargets.retryAfter(text)
    case "contentlength": FuzzTargets.contentLength(text)
    case "mediatype": FuzzTargets.mediaType(text)
    case "sse": FuzzTargets.serverSentEvents(bytes)
    case "lines": FuzzTargets.lines(bytes)
    case "jsonscanner": FuzzTargets.jsonScanner(bytes)
    case "jsontape": FuzzTargets.jsonTape(bytes)
    case "urltext": FuzzTargets.urlText(text)
    case "urlencoding": FuzzTargets.urlEncoding(text)
    case "har": FuzzTargets.har(bytes)
    case "lenientdate": FuzzTargets.lenientDate(text)
    case "diskentry": FuzzTargets.diskEntry(bytes)
    case "redaction": FuzzTargets.redaction(bytes)
    case "closereason": FuzzTargets.closeReason(bytes)
    case "certificate": FuzzTargets.certificate(bytes)
    case "cookies": FuzzTargets.cookies(text)
    default: fatalError("set KONEX_FUZZ_TARGET to one of scripts/fuzz's targets (got \"\(target)\")")
    }
    return 0
}

/// A property the target promises; failing it is a finding like a crash.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("property failed: \(message())") }
}

enum FuzzTargets {
    static func httpDate(_ text: String) {
        guard let date = HTTPDate.parse(text) else { return }
        // Four-digit years only: every date a header can give lies within years 0 to 9999.
        check(date.timeIntervalSince1970 > -62_200_000_000 && date.timeIntervalSince1970 < 253_403_000_000, "\(date)")
    }

    static func cacheControl(_ text: String) {
        let control = CacheControl(text)
        for name in ["max-age", "s-maxage", "stale-while-revalidate", "stale-if-error", "max-stale", "min-fresh"] {
            if case .valid(let seconds)? = control.seconds(name) {
                check((0...CacheControl.maximumSeconds).contains(seconds), "\(name)=\(seconds)")
            }
        }
        let age = CacheControl.ageSeconds(text)
        check((0...CacheControl.maximumSeconds).contains(age), "age \(age)")
        // A stored response built on the same text as every header must never trap when asked about freshness.
        let headers = [
            "Cache-Control": text, "Date": text, "Expires": text, "Last-Modified": text, "Age": text, "Vary": text,
        ]
        let stored = CachedResponse(
            url: URL(string: "https://fuzz.test/")!, statusCode: 200, headers: headers, body: Data(), requestDate: now,
            responseDate: now)
        _ = stored.age(at: now.addingTimeInterval(1))
        _ = stored.freshnessLifetime(shared: true)
        _ = stored.freshnessLifetime(shared: false)
    }

    static func retryAfter(_ text: String) {
        guard let wait = RetryAfter.parse(text, now: now) else { return }
        check(wait >= .zero, "negative wait \(wait)")
        _ = RetryPolicy().backoff(afterAttempt: Int(text.utf8.count))
    }

    /// A length is only ever what every element of the list spells in plain ASCII digits: never a prefix of one.
    static func contentLength(_ text: String) {
        // Split on the comma's byte, as HTTP does (a comma followed by a combining mark is still one).
        let elements = text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
        switch ContentLength(text) {
        case .length(let length):
            check(length >= 0, "negative length \(length)")
            check(elements.allSatisfy { Int64($0) == length && $0.utf8.allSatisfy { $0 &- 0x30 < 10 } }, "\(length)")
        case .conflicting:
            check(Set(elements.compactMap { Int64($0) }).count > 1, "conflicting without two lengths")
        case .invalid:
            break
        }
    }

    static func mediaType(_ text: String) {
        _ = MediaType.matches(text, anyOf: ["application/json", "text/*", "*/*", "application/*+json"])
        _ = MediaType.charset(of: text)
    }

    /// The same bytes in two chunkings (whole, and cut where the input's first byte says) give the same events.
    static func serverSentEvents(_ bytes: Data) {
        guard let first = bytes.first else { return }
        let body = bytes.dropFirst()
        func parse(_ chunks: [Data]) -> Result<[ServerSentEvent], StreamFailure> {
            var parser = ServerSentEventParser(maximumLineLength: 256, maximumEventSize: 1_024)
            var events: [ServerSentEvent] = []
            do {
                for chunk in chunks { try parser.parse(chunk) { events.append($0) } }
            } catch let failure as StreamFailure {
                return .failure(failure)
            } catch {
                fatalError("an error that is not a StreamFailure: \(error)")
            }
            parser.finish()
            return .success(events)
        }
        let step = Int(first % 7) + 1
        let pieces = stride(from: body.startIndex, to: body.endIndex, by: step).map {
            Data(body[$0..<Swift.min($0 + step, body.endIndex)])
        }
        let whole = parse([Data(body)])
        let cut = parse(pieces)
        switch (whole, cut) {
        case (.success(let a), .success(let b)): check(a == b, "chunking changed the events")
        case (.failure(let a), .failure(let b)): check(a.kind == b.kind, "chunking changed the failure")
        default: check(false, "chunking changed success into failure or back")
        }
    }

    /// Lines cut at any chunking are the lines of the whole.
    static func lines(_ bytes: Data) {
        guard let first = bytes.first else { return }
        let body = Array(bytes.dropFirst())
        func split(step: Int) -> [[UInt8]]? {
            var splitter = LineSplitter(maximumLength: 512)
            var lines: [[UInt8]] = []
            var index = 0
            do {
                while index < body.count {
                    let end = Swift.min(index + step, body.count)
                    try body[index..<end].withUnsafeBytes { try splitter.split($0) { lines.append(Array($0)) } }
                    index = end
                }
            } catch {
                return nil
            }
            if let rest = splitter.remainder() { lines.append(rest) }
            return lines
        }
        let whole = split(step: Swift.max(1, body.count))
        let cut = split(step: Int(first % 5) + 1)
        check(whole == cut, "chunking changed the lines")
    }

    /// Differential against a full parse: the scanner never returns a value from a document JSONSerialization
    /// refuses. The first line is the key path, the rest the document.
    /// A model with a field of each kind the tape reads itself, and some it leaves to `JSONDecoder`.
    struct Model: Decodable, Equatable {
        var id: Int?
        var small: Int8?
        var big: UInt64?
        var score: Double?
        var ratio: Float?
        var name: String?
        var flag: Bool?
        var tags: [String: Int]?
        var items: [Model]?
        var any: JSON?
        var when: Date?
        var blob: Data?
        var link: URL?
    }

    /// Catches its own errors, so the tape must decline 128-bit integers rather than throw something else.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    struct Wide: Decodable, Equatable {
        var id: Int128?
        var big: UInt128?
        var items: [Int128?]?
        enum CodingKeys: String, CodingKey { case id, big, items }
        struct Element: Decodable {
            var value: Int128?
            init(from decoder: any Decoder) throws { value = try? decoder.singleValueContainer().decode(Int128.self) }
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try? container.decode(Int128.self, forKey: .id)
            big = try? container.decode(UInt128.self, forKey: .big)
            items = (try? container.decode([Element].self, forKey: .items))?.map(\.value)
        }
    }

    /// A member name, spelled another way that Swift's strings call equal (KELVIN SIGN for `K`, decomposed accents):
    /// a key path finds what `JSONDecoder` finds under the same key.
    static func keyPathsAgree(_ bytes: Data) {
        // Only documents the tape reads (ASCII names, none repeated): with repeats, which one a reader takes is
        // its own choice, and that is not this property.
        let readable = bytes.withUnsafeBytes { JSONTape.nodes(of: $0.bindMemory(to: UInt8.self)) != nil }
        guard readable, let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any] else { return }
        struct Key: CodingKey {
            var stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        struct Member: Decodable {
            var value: JSON
            init(from decoder: any Decoder) throws {
                let name = decoder.userInfo[CodingUserInfoKey(rawValue: "name")!] as? String ?? ""
                value = try decoder.container(keyedBy: Key.self).decode(JSON.self, forKey: Key(stringValue: name))
            }
        }
        // A name a key path reads as an array index ("5") is not a member name there: left out.
        for name in object.keys.prefix(4) where !name.isEmpty && !name.contains(".") && (Int(name) ?? -1) < 0 {
            let kelvin = name.replacingOccurrences(of: "K", with: "\u{212A}")
            for spelled in Set([name, kelvin, name.decomposedStringWithCanonicalMapping]) {
                let decoder = JSONDecoder()
                decoder.userInfo[CodingUserInfoKey(rawValue: "name")!] = spelled
                let direct = Result { try decoder.decode(Member.self, from: bytes).value }
                let viaPath = Result {
                    try JSONTape.decode(JSON.self, from: bytes, at: JSONKeyPath(spelled), with: JSONDecoder())
                }
                switch (direct, viaPath) {
                case (.success(let a), .success(let b)): check(a == b, "key \(spelled): \(a) but the path read \(b)")
                case (.failure, .failure): break
                default: check(false, "key \(spelled): JSONDecoder \(direct), key path \(viaPath)")
                }
            }
        }
    }

    /// The tape's answer is `JSONDecoder`'s answer: the same value, or an error. (Not always the same error:
    /// `JSONDecoder` reads a dictionary's members in the dictionary's order, which differs from one instance to the
    /// next, so two runs of it can report different failures of one document.)
    static func jsonTape(_ bytes: Data) {
        func agree<T: Decodable & Equatable>(_ type: T.Type) {
            let direct = Result { try JSONDecoder().decode(type, from: bytes) }
            let viaTape = Result { try JSONTape.decode(type, from: bytes, with: JSONDecoder()) }
            switch (direct, viaTape) {
            case (.success(let a), .success(let b)): check(a == b, "\(T.self): \(a) but the tape read \(b)")
            case (.failure, .failure): break
            default: check(false, "\(T.self): JSONDecoder \(direct), tape \(viaTape)")
            }
        }
        agree(Model.self)
        agree([Model].self)
        agree(JSON.self)
        // Numbers as floating point alone: a zero with an exponent (`0e1`) is JSONDecoder's to judge.
        agree([Double].self)
        agree([Float].self)
        // The arrays the tape reads in one loop, nested too.
        agree([Int].self)
        agree([Int64].self)
        // Every other integer width: each is read by its own range check (`PlainInteger.fits`).
        let widths: [any (Decodable & Equatable).Type] = [
            [Int8].self, [UInt8].self, [Int16].self, [UInt16].self, [Int32].self, [UInt32].self, [UInt64].self,
            [UInt].self,
        ]
        for type in widths { agree(type) }
        agree([String].self)
        agree([[Double]].self)
        // 128-bit integers, caught by the model: a wrong error from the tape would read as a wrong value.
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            agree(Wide.self)
            agree([Wide].self)
        }
        keyPathsAgree(bytes)
        // The same documents under the other date and data strategies the tape applies itself.
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.dataDecodingStrategy = .deferredToData
        let direct = Result { try decoder.decode(Model.self, from: bytes) }
        let viaTape = Result { try JSONTape.decode(Model.self, from: bytes, with: decoder) }
        if case .success(let a) = direct, case .success(let b) = viaTape { check(a == b, "iso8601: \(a) / \(b)") }
        check(direct.isSuccess == viaTape.isSuccess, "iso8601: JSONDecoder \(direct), tape \(viaTape)")
    }

    static func jsonScanner(_ bytes: Data) {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return }
        let path = String(decoding: bytes[..<newline], as: UTF8.self)
        let document = Data(bytes[(newline + 1)...])
        guard let range = try? JSONScanner.range(of: JSONKeyPath(path), in: document) else { return }
        check(
            (try? JSONSerialization.jsonObject(with: document, options: .fragmentsAllowed)) != nil,
            "the scanner returned a value from a document a full parse refuses")
        check(
            (try? JSONSerialization.jsonObject(with: document[range], options: .fragmentsAllowed)) != nil,
            "the scanner returned a slice that is not JSON")
    }

    /// Encoding is idempotent, and what it gives Foundation always parses.
    static func urlText(_ text: String) {
        let once = URLText.encoded(Substring(text))
        check(URLText.encoded(once) == once, "encoding twice changed the text")
        if !text.isEmpty, !once.contains("://") || once.first?.isLetter == true {
            _ = URL(string: String(once))
        }
    }

    /// Percent-encoding round-trips.
    static func urlEncoding(_ text: String) {
        let encoded = URLEncoding.percentEncode(text)
        check(encoded.utf8.allSatisfy { $0 < 0x80 }, "non-ASCII after encoding")
        check(encoded.removingPercentEncoding == text, "decoding does not give the text back")
    }

    static func har(_ bytes: Data) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-fuzz-\(getpid()).har")
        guard (try? bytes.write(to: file)) != nil else { return }
        defer { try? FileManager.default.removeItem(at: file) }
        guard let (archive, _) = try? HAR.read(from: file) else { return }
        for entry in archive.log.entries {
            _ = try? entry.mockResponse(pacing: true)
            _ = Redaction.default.apply(to: entry)
        }
        _ = try? archive.endpoints(allowRepeats: false, pacing: true)
        _ = try? archive.encoded()
    }

    static let suffixes = PublicSuffixList(rules: "com\nexample.com\nco.uk\n*.ck\n!www.ck\n公司.cn")

    /// `Set-Cookie` lines (one a line of the input) into a jar, and each line through the date, punycode and suffix
    /// readers: whatever the lines, the jar holds only cookies its rules allow.
    static func cookies(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let earliest = Date(timeIntervalSince1970: -11_644_473_600)  // 1601-01-01
        for line in lines {
            if let date = CookieDate.parse(line) { check(date >= earliest, "a cookie date before 1601: \(date)") }
            _ = Punycode.decode(Substring(line))
            _ = suffixes.registrableDomain(of: line)
            check(!SetCookieLines.split(line).contains(""), "an empty line split from \(line)")
        }
        let jar = CookieJar(publicSuffixes: suffixes, limits: CookieJar.Limits(perDomain: 5, total: 8), now: { now })
        let host = "a.b.example.org"
        jar.receive(lines, from: URL(string: "http://\(host)/x/y")!)
        let kept = jar.all
        check(kept.count <= 8, "\(kept.count) cookies kept, over the limit of 8")
        for cookie in kept {
            check(cookie.size <= CookieJar.maximumSize, "a cookie of \(cookie.size) bytes")
            check(!cookie.isSecure, "a Secure cookie set over http")
            check(
                cookie.isHostOnly
                    ? cookie.domain == host : CookieJar.domainMatches(host, cookie.domain, hostIsAddress: false),
                "\(cookie.domain) does not hold \(host)")
            check(!suffixes.isPublicSuffix(cookie.domain) || cookie.isHostOnly, "a public suffix: \(cookie.domain)")
            check(
                cookie.expires.map { $0 <= now.addingTimeInterval(CookieJar.maximumLifetime) } ?? true,
                "an expiry past 400 days")
            check(cookie.path.hasPrefix("/"), "a path \(cookie.path)")
        }
        _ = jar.cookieHeader(for: URL(string: "http://\(host)/x/y/z")!)
    }

    static func lenientDate(_ text: String) {
        _ = LenientDate.parse(text)
        _ = LenientDate.parse(text, unpaddedMilliseconds: true)
    }

    static func diskEntry(_ bytes: Data) {
        _ = DiskCacheStorage.decode(bytes, key: "fuzz")
    }

    /// Redaction reads any body without a trap, in every format, and never grows a listed value back.
    static func redaction(_ bytes: Data) {
        let text = String(decoding: bytes, as: UTF8.self)
        let redaction = Redaction.default
        for type in [nil, "application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"] {
            _ = redaction.body(bytes, contentType: type)
            _ = redaction.bodySnippet(bytes, contentType: type, limit: Int(bytes.first ?? 0))
        }
        let once = redaction.redactJSON(text)
        check(redaction.redactJSON(once) == once, "redacting JSON twice changed it")
        _ = redaction.url(text)
        _ = redaction.text(text)
        _ = redaction.form(text)
        // The name normaliser reads any text a peer sends as a header, query or JSON key.
        let words = SecretName.words(text)
        check(words.allSatisfy { !$0.isEmpty }, "an empty word in \(words)")
        _ = SecretName.isSecret(text)
        _ = redaction.isSecret(header: text)
        _ = redaction.isListedField(text)
    }
}

extension FuzzTargets {
    /// A WebSocket close frame's payload, every byte the peer's: read, and any text written as a reason.
    static func closeReason(_ bytes: Data) {
        switch WebSocketClosePayload.parse(bytes) {
        case .closed(let code, let reason?):
            check(WebSocketClosePayload.isValidPeerCode(code), "accepted the code \(code)")
            check(reason.utf8.count == bytes.count - 2 && bytes.count <= 125, "a reason of \(reason.utf8.count) bytes")
            let again = WebSocketClosePayload.parse(WebSocketClosePayload.encode(code, reason: reason))
            check(again == .closed(code, reason: reason), "\(code) \(reason) read back as \(again)")
        case .closed(let code, nil):
            check(bytes.isEmpty && code == .noStatusReceived, "no reason for \(bytes.count) bytes")
        case .violation(_, let code):
            check(code == .protocolError || code == .invalidFramePayloadData, "closes with \(code)")
        }
        // Whatever text this side sends as a reason fits a control frame, is cut on a character, and reads back.
        let text = String(decoding: bytes, as: UTF8.self)
        let sent = WebSocketClosePayload.encode(.goingAway, reason: text)
        check(sent.count <= 125, "a close payload of \(sent.count) bytes")
        guard case .closed(.goingAway, let reason?) = WebSocketClosePayload.parse(sent) else {
            return check(false, "this side's own close does not read back")
        }
        check(text.hasPrefix(reason), "the reason was not cut on a character boundary")
    }
}

/// libFuzzer's driver, run from the entry point SwiftPM gives an executable (its own `main` is not linked then).
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt

@_cdecl("konex_fuzz_main")
public func fuzzMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { start, size in fuzz(start, size) }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

extension FuzzTargets {
    /// A server's certificate, as DER (what URLSession on Apple platforms hands the pin check) and as PEM text (what
    /// a caller's settings load): a key is found only inside the input, and a certificate read back from its own PEM
    /// is the same.
    static func certificate(_ bytes: Data) {
        let der = Array(bytes)
        if let info = DERReader.subjectPublicKeyInfo(ofCertificate: der) {
            check(info.first == 0x30 && info.startIndex >= 0 && info.endIndex <= der.count, "a key outside the input")
            let certificate = try? TLSCertificate(der: bytes)
            check(certificate?.publicKeyPin == PublicKeyPin(subjectPublicKeyInfo: info), "two pins for one key")
            if let certificate {
                check((try? TLSCertificate(pem: certificate.pem)) == certificate, "the PEM form reads back otherwise")
            }
        }
        _ = try? TLSCertificate.certificates(pem: String(decoding: bytes, as: UTF8.self))
    }
}
