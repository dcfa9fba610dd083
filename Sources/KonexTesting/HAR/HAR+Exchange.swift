import Foundation
import Konex

extension HAR.Entry {
    /// An entry for one exchange; binary bodies are base64 with an explicit marker.
    /// Each response field as it came, repeats apart (every `Set-Cookie` line its own entry, as HAR writes them).
    init(request: URLRequest, response: ResponseHead, body: Data, startedAt: Date, duration: Duration) {
        let url = request.url?.absoluteString ?? ""
        let requestHeaders = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { HAR.NameValue(name: $0.key, value: $0.value) }
        let query = RequestMatcher.queryItems(of: request.url).map { HAR.NameValue(name: $0.name, value: $0.value) }
        var postData: HAR.PostData?
        if let requestBody = request.httpBody, !requestBody.isEmpty {
            let mime = request.value(forHTTPHeaderField: "Content-Type") ?? "application/octet-stream"
            if let text = String(data: requestBody, encoding: .utf8) {
                postData = HAR.PostData(mimeType: mime, text: text, _encoding: nil)
            } else {
                postData = HAR.PostData(mimeType: mime, text: requestBody.base64EncodedString(), _encoding: "base64")
            }
        }
        // Sorted by name (stable: repeats keep their order), so a recording reads the same whatever the transport.
        let responseHeaders = response.headerFields.fields.enumerated()
            .sorted { ($0.element.name.lowercased(), $0.offset) < ($1.element.name.lowercased(), $1.offset) }
            .map { HAR.NameValue(name: $0.element.name, value: $0.element.value) }
        // The cookies as they went and came: the `Cookie` header's pairs, and each `Set-Cookie` line's.
        let sentCookies = (request.value(forHTTPHeaderField: "Cookie") ?? "").split(separator: ";").compactMap {
            Self.cookie(String($0))
        }
        let setCookies = SetCookieLines.lines(of: response).compactMap { line in
            Self.cookie(String(line.prefix { $0 != ";" }))
        }
        let mime = response.value(forHTTPHeaderField: "Content-Type") ?? ""
        let text = String(data: body, encoding: .utf8)
        let milliseconds = Double(duration / .microseconds(1)) / 1000
        self.init(
            startedDateTime: LenientDate.format(startedAt), time: milliseconds,
            request: HAR.Request(
                method: request.httpMethod ?? "GET", url: url, httpVersion: "HTTP/1.1", cookies: sentCookies,
                headers: requestHeaders, queryString: query, postData: postData, headersSize: -1,
                bodySize: request.httpBody?.count ?? 0),
            response: HAR.Response(
                status: response.statusCode,
                statusText: ReasonPhrase.of(response.statusCode),
                httpVersion: "HTTP/1.1",
                cookies: setCookies, headers: responseHeaders,
                content: HAR.Content(
                    size: body.count, mimeType: mime, text: text ?? body.base64EncodedString(),
                    encoding: text == nil ? "base64" : nil),
                redirectURL: response.value(forHTTPHeaderField: "Location") ?? "", headersSize: -1, bodySize: body.count
            ),
            timings: HAR.Timings(send: 0, wait: milliseconds, receive: 0))
    }

    /// A `name=value` pair as HAR writes a cookie; `nil` for an empty one.
    static func cookie(_ pair: String) -> HAR.NameValue? {
        let pair = pair.trimmingCharacters(in: .whitespaces)
        guard !pair.isEmpty else { return nil }
        guard let equals = pair.firstIndex(of: "=") else { return HAR.NameValue(name: "", value: pair) }
        return HAR.NameValue(
            name: pair[..<equals].trimmingCharacters(in: .whitespaces),
            value: pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces))
    }

    /// The response this entry replays. An event stream replays event by event, and a recorded stream (with
    /// `_konex.chunks`) chunk by chunk; with `pacing`, each at the time it arrived when recorded.
    func mockResponse(pacing: Bool = false) throws -> MockResponse {
        var headers: [String: String] = [:]
        for header in response.headers {
            // Repeated headers (Set-Cookie, Vary) fold into one comma-separated value, as HTTPURLResponse does.
            headers[header.name] = headers[header.name].map { $0 + ", " + header.value } ?? header.value
        }
        let text = response.content.text ?? ""
        let body: Data
        if response.content.encoding == "base64" {
            guard let decoded = Data(base64Encoded: text) else {
                throw FixtureError("entry for \(request.method) \(request.url) has invalid base64 content")
            }
            body = decoded
        } else {
            body = Data(text.utf8)
        }
        let isEventStream = response.content.mimeType.lowercased().hasPrefix("text/event-stream")
        guard isEventStream || _konex?.chunks != nil else {
            return MockResponse(status: response.status, headers: headers, body: .data(body))
        }
        let recorded = _konex?.chunks ?? [HAR.ChunkTiming(bytes: body.count, atMilliseconds: 0)]
        let pieces = isEventStream ? Self.events(in: body) : Self.split(body, as: recorded)
        // An event (or chunk) replays when its last byte arrived in the recording.
        var arrival: [Double] = []
        var end = 0
        var chunkIndex = 0
        var chunkEnd = recorded.first?.bytes ?? 0
        for piece in pieces {
            end += piece.count
            while chunkEnd < end, chunkIndex + 1 < recorded.count {
                chunkIndex += 1
                chunkEnd += recorded[chunkIndex].bytes
            }
            arrival.append(recorded.isEmpty ? 0 : recorded[chunkIndex].atMilliseconds)
        }
        let chunks = pieces.enumerated().map { index, piece in
            let gap = pacing ? arrival[index] - (index == 0 ? 0 : arrival[index - 1]) : 0
            return MockChunk(piece, after: Duration(clampedSeconds: gap / 1_000, atMost: 86_400))
        }
        return MockResponse(status: response.status, headers: headers, body: .chunks(chunks, then: .finish))
    }

    /// The bytes of an event stream cut after each blank line (LF, CRLF or CR line ends).
    static func events(in body: Data) -> [Data] {
        let bytes = [UInt8](body)
        var pieces: [Data] = []
        var start = 0
        var index = 0
        var previousWasEnd = false
        while index < bytes.count {
            var length = 0
            if bytes[index] == 0x0A {
                length = 1
            } else if bytes[index] == 0x0D {
                length = index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
            }
            if length > 0 {
                index += length
                if previousWasEnd {
                    pieces.append(Data(bytes[start..<index]))
                    start = index
                    previousWasEnd = false
                } else {
                    previousWasEnd = true
                }
            } else {
                index += 1
                previousWasEnd = false
            }
        }
        if start < bytes.count { pieces.append(Data(bytes[start...])) }
        return pieces
    }

    /// The body cut at the recorded chunk sizes.
    static func split(_ body: Data, as chunks: [HAR.ChunkTiming]) -> [Data] {
        var pieces: [Data] = []
        var offset = body.startIndex
        for chunk in chunks where offset < body.endIndex {
            let end = Swift.min(body.endIndex, offset + chunk.bytes)
            pieces.append(body[offset..<end])
            offset = end
        }
        if offset < body.endIndex { pieces.append(body[offset...]) }
        return pieces
    }
}

extension HAR {
    /// Endpoints that replay the archive: identical requests answer in recorded order, once each
    /// (or the last one repeatedly when `allowRepeats` is set).
    func endpoints(allowRepeats: Bool, pacing: Bool = false, matching: ReplayMatching = .default) throws
        -> [MockEndpoint]
    {
        var order: [String] = []
        var groups: [String: (RequestMatcher, [MockResponse])] = [:]
        for entry in log.entries {
            // Entries that the matching cannot tell apart answer in recorded order.
            let matcher = matching.matcher(for: entry)
            let key = matching.key(for: entry, matcher: matcher)
            if groups[key] == nil {
                order.append(key)
                groups[key] = (matcher, [])
            }
            groups[key]!.1.append(try entry.mockResponse(pacing: pacing))
        }
        return order.map { key in
            let (matcher, responses) = groups[key]!
            return MockEndpoint(matcher, responses: responses, times: allowRepeats ? .always : .times(responses.count))
        }
    }
}
