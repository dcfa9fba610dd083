import Foundation
import Testing

@testable import Konex

/// The values a transport reads and makes: Konex's heads, read lazily from Foundation's types and kept apart when
/// changed, and a body that is whole, streamed or a file.
@Suite struct TransportHeadsTests {
    let url = URL(string: "https://api.test/posts?page=2")!

    func built() -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: 12)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.httpBody = Data("{}".utf8)
        return request
    }

    @Test func aHeadReadsItsRequestAndHandsItBackUnchanged() {
        let request = TransportRequest(built())
        #expect(request.method == .post)
        #expect(request.url == url)
        #expect(request.head.timeout == .seconds(12))
        #expect(request.value(forHTTPHeaderField: "authorization") == "Bearer secret")
        #expect(request.head.headerFields["CONTENT-TYPE"] == "application/json")
        #expect(request.body?.data == Data("{}".utf8))
        #expect(request.body?.canBeSentAgain == true)
        #expect(request.urlRequest == built())
    }

    @Test func changingTheHeadKeepsEveryOtherPartAndTheBody() {
        var request = TransportRequest(built())
        request.head.url = URL(string: "https://other.test/x")!
        request.head.setValue(nil, forHTTPHeaderField: "AUTHORIZATION")
        #expect(request.method == .post)
        #expect(request.head.timeout == .seconds(12))
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(request.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(request.body?.data == Data("{}".utf8))
        let rebuilt = request.urlRequest
        #expect(rebuilt.url?.host == "other.test")
        #expect(rebuilt.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(rebuilt.httpBody == Data("{}".utf8))
        #expect(rebuilt.httpMethod == "POST")
    }

    @Test func aBodyRemovedIsNotSentFromTheOriginalRequest() {
        var request = TransportRequest(built())
        request.body = nil
        #expect(request.urlRequest.httpBody == nil)
        #expect(request.urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")

        var streamed = built()
        streamed.httpBodyStream = InputStream(data: Data(count: 10))
        var withoutStream = TransportRequest(streamed)
        withoutStream.body = nil
        #expect(withoutStream.urlRequest.httpBodyStream == nil)
        #expect(withoutStream.urlRequest.httpBody == nil)
    }

    @Test func setValueReplacesEveryRepeatAndKeepsTheOthersInOrder() {
        var head = RequestHead(
            method: .get, url: url,
            headerFields: HTTPHeaders(keepingRepeats: [("Accept", "a"), ("X-Tag", "1"), ("accept", "b")]))
        #expect(head.value(forHTTPHeaderField: "ACCEPT") == "a,b")  // as URLRequest joins what addValue added
        #expect(head.headerFields.values(for: "accept") == ["a", "b"])
        head.setValue("c", forHTTPHeaderField: "Accept")
        #expect(head.headerFields.fields.map(\.name) == ["X-Tag", "Accept"])
        #expect(head.urlRequest.value(forHTTPHeaderField: "accept") == "c")
    }

    @Test func aStreamBodyCannotBeSentAgainAndIsDrainedUpToItsLimit() throws {
        var made = URLRequest(url: url)
        made.httpBodyStream = InputStream(data: Data(count: 10))
        let body = try #require(TransportRequest(made).body)
        #expect(!body.canBeSentAgain)
        #expect(body.data == nil)
        #expect(throws: ResponseBody.TooLong.self) { try body.collect(upTo: 4) }
    }

    @Test func aResponseHeadJoinsRepeatsAndMakesAFoundationResponseOnlyWhenAsked() {
        let head = ResponseHead(
            statusCode: 200,
            headerFields: HTTPHeaders(keepingRepeats: [("Vary", "Accept"), ("vary", "Origin"), ("Content-Length", "5")]
            ),
            url: url)
        #expect(head.value(forHTTPHeaderField: "VARY") == "Accept, Origin")
        #expect(head.expectedContentLength == 5)
        let made = head.httpURLResponse
        #expect(made.statusCode == 200)
        #expect(made.value(forHTTPHeaderField: "Vary") == "Accept, Origin")
    }

    @Test(arguments: [-1, 1_000, Int.max, Int.min])
    func aStatusNoResponseCanHoldIsClampedNotACrash(status: Int) {
        let made = ResponseHead(statusCode: status, url: url).httpURLResponse
        #expect(made.statusCode == 999)
    }

    @Test func aHeadReadFromFoundationIsHandedBackAndKeptApartWhenChanged() throws {
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: 201, httpVersion: nil, headerFields: ["ETag": "\"v1\""]))
        var head = ResponseHead(response)
        #expect(head.httpURLResponse === response)
        #expect(head.headerFields["etag"] == "\"v1\"")
        head.statusCode = 200
        #expect(head.httpURLResponse !== response)
        #expect(head.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(head.expectedContentLength == -1)
    }

    @Test func aHostileContentLengthIsUnknownNotACrash() {
        for value in ["-5", "99999999999999999999999", "12abc", ""] {
            let head = ResponseHead(statusCode: 200, headerFields: ["Content-Length": value], url: url)
            #expect(head.expectedContentLength == (value == "-5" ? -5 : -1))
        }
    }

    @Test func aWholeBodyIsCollectedAtNoCostAndRefusedPastItsLimit() async throws {
        let body = ResponseBody(Data("hello".utf8))
        #expect(body.data == Data("hello".utf8))
        #expect(try await body.collect(upTo: 5) == Data("hello".utf8))
        await #expect(throws: ResponseBody.TooLong.self) { try await body.collect(upTo: 4) }
        #expect(try await ResponseBody.empty.collect(upTo: 0).isEmpty)
    }

    @Test func aStreamedBodyStopsAtItsLimitAndCancelsTheTransfer() async throws {
        let cancelled = Lock(false)
        let (stream, continuation) = ByteStream.makeStream(bufferLimit: 1 << 20) { cancelled.value = true }
        for _ in 0..<4 { continuation.yield(Data(count: 100)) }
        let body = ResponseBody(stream)
        #expect(body.data == nil)
        await #expect(throws: ResponseBody.TooLong.self) { try await body.collect(upTo: 250) }
        #expect(cancelled.value)
    }

    @Test func aFileBodyIsReadInChunksAndRemovedOnceCollected() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-head-\(UUID()).body")
        let bytes = Data((0..<200_000).map { UInt8($0 % 251) })
        try bytes.write(to: file)
        var chunks = 0
        var read = Data()
        for try await chunk in ResponseBody.file(file) {
            chunks += 1
            read.append(chunk)
        }
        #expect(read == bytes)
        #expect(chunks == 4)  // 64 KiB at a time: a large file never sits in memory whole
        #expect(try await ResponseBody.file(file).collect(upTo: bytes.count) == bytes)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aFileBodyThatVanishedIsAnErrorNotAnEmptyBody() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("konex-missing-\(UUID())")
        await #expect(throws: (any Error).self) {
            for try await _ in ResponseBody.file(missing) {}
        }
    }
}
