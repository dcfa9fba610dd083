import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

@Suite struct RequestBodyTests {
    struct Send: KonexRequest {
        let path = "/echo"
        var method: HTTPMethod = .post
        var body: RequestBody?
        var headers: [String: String]?
        var parameters: Parameters?
    }

    @Test func jsonBody() async throws {
        let (client, mock) = makeClient { $0.stub(.post("/v1/echo"), .status(200)) }
        _ = try await client.request(Send(body: .json(Post(id: 1, title: "Hi")))).response()
        let sent = try #require(mock.requests.first)
        #expect(sent.header("Content-Type") == "application/json")
        #expect(try sent.decodedBody(as: Post.self) == Post(id: 1, title: "Hi"))
    }

    @Test func jsonBodyWithOwnEncoder() async throws {
        struct Snake: Codable, Sendable { var userName: String }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let (client, mock) = makeClient { $0.stub(.post("/v1/echo"), .status(200)) }
        _ = try await client.request(Send(body: .json(Snake(userName: "ada"), encoder: encoder))).response()
        #expect(String(decoding: try #require(mock.requests.first).body, as: UTF8.self) == #"{"user_name":"ada"}"#)
    }

    @Test func formBody() async throws {
        let (client, mock) = makeClient { $0.stub(.post("/v1/echo"), .status(200)) }
        _ = try await client.request(Send(body: .form(["user": "ada lovelace", "remember": true]))).response()
        let sent = try #require(mock.requests.first)
        #expect(sent.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(String(decoding: sent.body, as: UTF8.self) == "remember=true&user=ada%20lovelace")
    }

    @Test func rawBodyAndExplicitContentTypeWins() async throws {
        let (client, mock) = makeClient { $0.stub(.post("/v1/echo"), .status(200)) }
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        _ = try await client.request(Send(body: .data(png, contentType: "image/png"))).response()
        _ = try await client.request(Send(body: .text("hi"), headers: ["Content-Type": "text/markdown"])).response()
        #expect(mock.requests[0].header("Content-Type") == "image/png")
        #expect(mock.requests[0].body == png)
        #expect(mock.requests[1].header("Content-Type") == "text/markdown")
    }

    @Test func bodyWithParametersPutsParametersInQuery() async throws {
        let (client, mock) = makeClient { $0.stub(.post("/v1/echo").query(["dry": "true"]), .status(200)) }
        _ = try await client.request(Send(body: .text("x"), parameters: ["dry": true])).validate().response()
        #expect(mock.requests.first?.body == Data("x".utf8))
    }

    @Test func getWithBodyIsRejected() async throws {
        let (client, _) = makeClient()
        let error = await expectThrows(KonexError.self) {
            try await client.request(Send(method: .get, body: .text("x"))).response()
        }
        #expect(error?.stage == .invalidRequest)
        #expect(error?.message == "a GET request cannot carry a body")
    }

    @Test func throwingEncodableIsAnInvalidRequest() async throws {
        struct Bad: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(
                    "x", .init(codingPath: [], debugDescription: "refuses to encode"))
            }
        }
        let (client, _) = makeClient()
        let error = await expectThrows(KonexError.self) {
            try await client.request(Send(body: .json(Bad()))).response()
        }
        #expect(error?.stage == .invalidRequest)
        #expect(error?.message.contains("refuses to encode") == true)
        #expect(error?.url?.absoluteString == "https://api.test/v1/echo")
    }

    @Test func nonFiniteDoubleParameterCannotBeEncoded() async throws {
        let (client, _) = makeClient()
        let error = await expectThrows(KonexError.self) {
            try await client.request(Send(parameters: ["x": .double(.infinity)])).response()
        }
        #expect(error?.stage == .invalidRequest)
        #expect(error?.message.contains("could not be encoded as JSON") == true)
    }

    @Test(arguments: ["X-Evil\r\nInjected", "ok\nno"])
    func headerInjectionIsRejected(value: String) async throws {
        let (client, _) = makeClient()
        let error = await expectThrows(KonexError.self) {
            try await client.request(Send(body: nil, headers: ["X-Name": value])).response()
        }
        #expect(error?.stage == .invalidRequest)
        #expect(error?.message.contains("header injection refused") == true)
    }

    @Test func invalidHeaderNameIsRejected() async throws {
        let (client, _) = makeClient()
        let error = await expectThrows(KonexError.self) {
            try await client.request(Send(body: nil, headers: ["Bad Name": "x"])).response()
        }
        #expect(error?.message.contains("invalid header name") == true)
    }

    @Test func multipartShapeFollowsRFC7578() throws {
        var form = MultipartFormData(boundary: "BOUNDARY")
        form.append("Ada", name: "author")
        form.append(Data([0, 1, 2]), name: "file", fileName: "a\"b.bin", contentType: "application/x-test")
        let body = try form.encode()
        var expected = Data("--BOUNDARY\r\nContent-Disposition: form-data; name=\"author\"\r\n\r\nAda\r\n".utf8)
        expected.append(
            Data(
                "--BOUNDARY\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a%22b.bin\"\r\nContent-Type: application/x-test\r\n\r\n"
                    .utf8))
        expected.append(Data([0, 1, 2]))
        expected.append(Data("\r\n--BOUNDARY--\r\n".utf8))
        #expect(body == expected)
        #expect(form.contentType == "multipart/form-data; boundary=BOUNDARY")
    }

    @Test func multipartLineBreaksAreWrittenAsBrowsersWriteThem() throws {
        // The HTML standard's form-data encoding: a bare CR or LF in a name or a text value becomes CRLF, then a
        // name's (and a file name's) CR, LF and quote are percent-encoded; a file's bytes are never touched.
        var form = MultipartFormData(boundary: "B")
        form.append("b\nc\rd\r\ne", name: "a\nb")
        form.append(Data("x\ny".utf8), name: "q\"\r", fileName: "f\n.txt", contentType: "text/plain")
        let body = String(decoding: try form.encode(), as: UTF8.self)
        let expected =
            "--B\r\nContent-Disposition: form-data; name=\"a%0D%0Ab\"\r\n\r\nb\r\nc\r\nd\r\ne\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"q%22%0D%0A\"; filename=\"f%0A.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nx\ny\r\n--B--\r\n"
        #expect(body == expected)
    }

    @Test func multipartRefusesBoundaryInsideAPart() {
        var form = MultipartFormData(boundary: "B")
        form.append("x--By", name: "a")
        #expect(throws: MultipartError.self) { try form.encode() }
    }
}
