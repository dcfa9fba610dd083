import Foundation
import Konex

extension HAR {
    /// An entry a reader left out, and why (a failed request with status 0, a `data:` URL, …).
    public struct SkippedEntry: Sendable, Hashable, CustomStringConvertible {
        /// The entry's index in `log.entries`.
        public let index: Int
        /// Why it was left out.
        public let reason: String
        public var description: String { "entry \(index): \(reason)" }
    }

    /// Reads an archive as the tools that write HAR files really write them, keeping every entry that can be
    /// replayed and reporting the rest; ``encoded()`` still writes strict HAR 1.2.
    ///
    /// Tolerated (each seen in files from Chrome, Safari, Firefox, Charles, Fiddler, IE, Firebug, Insomnia,
    /// mitmproxy, Playwright and Polly.JS): a UTF-8 byte order mark; HAR 1.1; `null` where the spec has a value
    /// (`pages`, `statusText`, `redirectURL`, `headersSize`, cache fields); missing fields (`content.size`, timings,
    /// `headersSize`, `cookies`, `pages`); header values written as arrays; `cookies` as an object; `postData` with
    /// `params` and no `text` (the form body is rebuilt); `startedDateTime` with 1 to 9 fractional digits and `Z` or an
    /// offset; `time` as an integer or a float; unknown fields. Entries whose status is outside 100...599 (a failed
    /// request is recorded with 0 or -1) or whose URL is not http(s) are skipped and reported.
    /// - Parameter url: The `.har` file.
    /// - Returns: The replayable entries as a strict archive, and the entries left out.
    /// - Throws: ``FixtureError`` naming the file, the entry and the field, when the file is not JSON, not a HAR, or
    ///   an entry cannot be read at all (no URL).
    public static func read(from url: URL) throws -> (archive: HAR, skipped: [SkippedEntry]) {
        var data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw FixtureError("cannot read HAR file \(url.path): \(error.localizedDescription)")
        }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw FixtureError("malformed HAR file \(url.path): not valid JSON (\(error.localizedDescription))")
        }
        guard let log = (root as? [String: Any])?["log"] as? [String: Any] else {
            throw FixtureError("malformed HAR file \(url.path): not a HAR (no \"log\" object at the top level)")
        }
        guard let rawEntries = log["entries"] as? [Any] else {
            throw FixtureError("malformed HAR file \(url.path): missing required field .log.entries (an array)")
        }
        let creator = (log["creator"] as? [String: Any])?["name"] as? String ?? ""
        var archive = HAR(log: Log(version: "1.2", creator: Creator(name: creator.isEmpty ? "unknown" : creator)))
        var skipped: [SkippedEntry] = []
        for (index, raw) in rawEntries.enumerated() {
            let reader = EntryReader(file: url, index: index, creator: creator)
            switch try reader.read(raw) {
            case .entry(let entry): archive.log.entries.append(entry)
            case .skip(let reason): skipped.append(SkippedEntry(index: index, reason: reason))
            }
        }
        return (archive, skipped)
    }
}

/// Reads one entry leniently into the strict model.
struct EntryReader {
    enum Outcome {
        case entry(HAR.Entry)
        case skip(String)
    }

    let file: URL
    let index: Int
    let creator: String

    func failure(_ field: String, _ problem: String) -> FixtureError {
        FixtureError("malformed HAR file \(file.path): entry \(index), field \(field): \(problem)")
    }

    func read(_ raw: Any) throws -> Outcome {
        guard let entry = raw as? [String: Any] else { throw failure(".log.entries[\(index)]", "not an object") }
        guard let request = entry["request"] as? [String: Any] else {
            throw failure(".log.entries[\(index)].request", "missing or not an object")
        }
        guard let url = request["url"] as? String, !url.isEmpty else {
            throw failure(".log.entries[\(index)].request.url", "missing; an entry without a URL cannot be replayed")
        }
        let scheme = url.prefix { $0 != ":" }.lowercased()
        let webSocketMessages = entry["_webSocketMessages"] as? [[String: Any]]
        guard scheme == "http" || scheme == "https" || (webSocketMessages != nil && (scheme == "ws" || scheme == "wss"))
        else { return .skip("the URL \(url.prefix(60)) is not http(s)") }
        guard let response = entry["response"] as? [String: Any] else { return .skip("no response") }
        let status = Self.integer(response["status"]) ?? 0
        guard (100...599).contains(status) else {
            let error = (response["_error"] as? String).map { " (\($0))" } ?? ""
            return .skip("status \(status): the request failed before a response\(error)")
        }
        let content = response["content"] as? [String: Any] ?? [:]
        let mimeType = Self.text(content["mimeType"]) ?? ""
        var body = Self.text(content["text"]) ?? ""
        var encoding = Self.text(content["encoding"])
        if encoding == "base64" {
            guard Data(base64Encoded: body, options: .ignoreUnknownCharacters) != nil else {
                return .skip("content.text is marked base64 but is not")
            }
            body = Data(base64Encoded: body, options: .ignoreUnknownCharacters)!.base64EncodedString()
        } else {
            encoding = nil
        }
        let startedDateTime = Self.text(entry["startedDateTime"]) ?? ""
        let date = LenientDate.parse(startedDateTime, unpaddedMilliseconds: creator.contains("Internet Explorer"))
        let strict = HAR.Entry(
            startedDateTime: date.map(LenientDate.format) ?? startedDateTime,
            time: Self.number(entry["time"]) ?? 0,
            request: HAR.Request(
                method: (Self.text(request["method"]) ?? "GET").uppercased(), url: url,
                httpVersion: Self.text(request["httpVersion"]) ?? "", cookies: Self.nameValues(request["cookies"]),
                headers: Self.nameValues(request["headers"]), queryString: Self.nameValues(request["queryString"]),
                postData: postData(request["postData"]), headersSize: Self.integer(request["headersSize"]) ?? -1,
                bodySize: Self.integer(request["bodySize"]) ?? -1),
            response: HAR.Response(
                status: status, statusText: Self.text(response["statusText"]) ?? "",
                httpVersion: Self.text(response["httpVersion"]) ?? "", cookies: Self.nameValues(response["cookies"]),
                headers: Self.nameValues(response["headers"]),
                content: HAR.Content(
                    size: Self.integer(content["size"]) ?? -1, mimeType: mimeType, text: body, encoding: encoding),
                redirectURL: Self.text(response["redirectURL"]) ?? "",
                headersSize: Self.integer(response["headersSize"]) ?? -1,
                bodySize: Self.integer(response["bodySize"]) ?? -1),
            timings: HAR.Timings(
                send: Self.number((entry["timings"] as? [String: Any])?["send"]) ?? 0,
                wait: Self.number((entry["timings"] as? [String: Any])?["wait"]) ?? 0,
                receive: Self.number((entry["timings"] as? [String: Any])?["receive"]) ?? 0))
        var kept = strict
        kept._resourceType = Self.text(entry["_resourceType"])
        if let webSocketMessages {
            kept._webSocketMessages = try webSocketMessages.enumerated().map { position, message in
                guard let type = Self.text(message["type"]), let opcode = Self.integer(message["opcode"]) else {
                    throw failure(
                        ".log.entries[\(index)]._webSocketMessages[\(position)]", "needs a type and an opcode")
                }
                return HAR.WebSocketMessage(
                    type: type, time: Self.number(message["time"]) ?? 0, opcode: opcode,
                    data: Self.text(message["data"]) ?? "")
            }
        }
        // Konex's own custom field (what was redacted, a stream's chunk timings) survives a read and a rewrite.
        if let konex = entry["_konex"], JSONSerialization.isValidJSONObject(konex),
            let data = try? JSONSerialization.data(withJSONObject: konex)
        {
            kept._konex = try? JSONDecoder().decode(HAR.KonexInfo.self, from: data)
        }
        return .entry(kept)
    }

    /// `postData` with `text`, or with only `params` (Firebug, HAR 1.1): the form body is rebuilt from them.
    func postData(_ raw: Any?) -> HAR.PostData? {
        guard let post = raw as? [String: Any] else { return nil }
        let mimeType = Self.text(post["mimeType"]) ?? ""
        if let text = Self.text(post["text"]), !text.isEmpty {
            return HAR.PostData(mimeType: mimeType, text: text, _encoding: nil)
        }
        let params = (post["params"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        guard !params.isEmpty else { return nil }
        let form = params.map { param in
            URLEncoding.percentEncode(Self.text(param["name"]) ?? "") + "="
                + URLEncoding.percentEncode(Self.text(param["value"]) ?? "")
        }
        return HAR.PostData(
            mimeType: mimeType.isEmpty ? "application/x-www-form-urlencoded" : mimeType,
            text: form.joined(separator: "&"), _encoding: nil)
    }

    /// A string, or the strings of an array joined with ", " (Polly.JS writes header values and mime types so).
    static func text(_ raw: Any?) -> String? {
        if let string = raw as? String { return string }
        if let array = raw as? [Any] { return array.compactMap { text($0) }.joined(separator: ", ") }
        if let number = number(raw) {
            // Whole numbers as integers, while an Int64 holds them exactly; anything larger as written by Double.
            if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        }
        return nil
    }

    static func number(_ raw: Any?) -> Double? {
        switch raw {
        case let value as Int: Double(value)
        case let value as Double: value
        case let value as NSNumber: value.doubleValue
        case let value as String: Double(value)
        default: nil
        }
    }

    static func integer(_ raw: Any?) -> Int? {
        number(raw).flatMap { $0.isFinite ? Int(exactly: $0.rounded()) : nil }
    }

    /// Name–value pairs from an array of objects; anything else (`null`, an object) reads as none.
    static func nameValues(_ raw: Any?) -> [HAR.NameValue] {
        (raw as? [Any] ?? []).compactMap { item in
            guard let pair = item as? [String: Any], let name = text(pair["name"]) else { return nil }
            return HAR.NameValue(name: name, value: text(pair["value"]) ?? "")
        }
    }
}
