import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct TerminalOperationTests {
    let posts = [Post(id: 1, title: "One"), Post(id: 2, title: "Two")]

    func client() -> KonexClient {
        makeClient {
            $0.stub(.get("/v1/posts"), .json(posts, headers: ["ETag": "v1"]))
            $0.stub(.get("/v1/envelope"), .string(#"{"data": {"items": [{"id": 1, "title": "One"}], "total": 1}}"#))
            $0.stub(.get("/v1/text"), .data(Data("caf\u{e9}".utf8), contentType: "text/plain; charset=utf-8"))
            $0.stub(
                .get("/v1/latin1"),
                .data(Data([0x63, 0x61, 0x66, 0xE9]), contentType: "text/plain; charset=ISO-8859-1"))
        }.0
    }

    @Test func asyncForms() async throws {
        let client = client()
        let envelope = try await client.request("posts").response()
        #expect(envelope.statusCode == 200)
        #expect(envelope.value(forHTTPHeaderField: "etag") == "v1")
        #expect(envelope.localizedStringForStatusCode == HTTPURLResponse.localizedString(forStatusCode: 200))
        #expect(envelope.request.url.absoluteString == "https://api.test/v1/posts")
        #expect(envelope.timing.attempt == 1)
        #expect(try await client.request("posts").responseData() == envelope.data)
        #expect(try await client.request("text").responseString() == "café")
        #expect(try await client.request("latin1").responseString() == "café")
        #expect(try await client.request("posts").responseJSON()[1]?["title"] == "Two")
        #expect(try await client.request("posts").responseArray(of: Post.self) == posts)
        #expect(try await client.request("posts").responseObject(of: [Post].self) == posts)
        #expect(try await client.request("posts").response(of: [Post].self).value == posts)
    }

    @Test func keyPathDecodingFindsNestedValues() async throws {
        let client = client()
        #expect(
            try await client.request("envelope").responseArray(of: Post.self, atKeyPath: "data.items") == [posts[0]])
        #expect(try await client.request("envelope").responseObject(of: Int.self, atKeyPath: "data.total") == 1)
        #expect(
            try await client.request("envelope").responseObject(of: Post.self, atKeyPath: "data.items.0")
                == posts[0])
        #expect(try await client.request("envelope").responseJSON(atKeyPath: "data.items.0.title") == "One")
    }

    @Test(arguments: [
        ("data.missing", "key not found: \"missing\" at data"),
        ("data.items.5", "index 5 out of range at data.items"),
        ("data.total.x", "expected an object at data.total, found a number"),
    ])
    func keyPathFailuresNameThePath(path: String, message: String) async throws {
        let error = await expectThrows(KonexError.self) {
            try await client().request("envelope").responseObject(of: Post.self, atKeyPath: path)
        }
        #expect(error?.stage == .decoding)
        #expect(error?.message == message)
    }

    @Test func keyPathTypeMismatchPrefixesTheCodingPath() async throws {
        let error = await expectThrows(KonexError.self) {
            try await client().request("envelope").responseArray(of: Int.self, atKeyPath: "data.items")
        }
        #expect(error?.codingPath == "data.items[0]")
    }

    @Test func callbackFormsDeliverExactlyOnce() async throws {
        let client = client()
        let results = Lock<[String]>([])
        let handles = [
            client.request("posts").responseArray(
                of: Post.self, onSuccess: { v in results.withLock { $0.append("array:\(v.count)") } }, onError: { _ in }
            ),
            client.request("posts").responseObject(
                of: [Post].self, onSuccess: { v in results.withLock { $0.append("object:\(v.count)") } },
                onError: { _ in }),
            client.request("text").responseString(
                onSuccess: { v in results.withLock { $0.append("string:\(v)") } }, onError: { _ in }),
            client.request("posts").responseJSON(
                onSuccess: { v in results.withLock { $0.append("json:\(v.arrayValue?.count ?? -1)") } },
                onError: { _ in }),
            client.request("posts").responseData(
                onSuccess: { v in results.withLock { $0.append("data:\(v.isEmpty)") } }, onError: { _ in }),
            client.request("missing").responseData(
                onSuccess: { _ in }, onError: { v in results.withLock { $0.append("error:\(v.stage)") } }),
            client.request("posts").response { result in
                results.withLock { $0.append("response:\((try? result.get())?.statusCode ?? 0)") }
            },
            client.request("posts").response(of: [Post].self) { result in
                results.withLock { $0.append("typed:\((try? result.get())?.value.count ?? 0)") }
            },
        ]
        for handle in handles { await handle.wait() }
        #expect(
            Set(results.value) == [
                "array:2", "object:2", "string:café", "json:2", "data:false", "error:transport", "response:200",
                "typed:2",
            ])
        #expect(results.value.count == 8)
        #expect(handles.allSatisfy { (handle: RequestHandle) in handle.isFinished })
    }

    @Test func callbacksCanBeDeliveredOnAQueue() async throws {
        let queue = DispatchQueue(label: "delivery")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let onQueue = Lock<Bool?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            client().request("posts").responseData(
                queue: queue,
                onSuccess: { _ in
                    onQueue.value = DispatchQueue.getSpecific(key: key) == true
                    done.resume()
                }, onError: { _ in done.resume() })
        }
        #expect(onQueue.value == true)
    }

    @Test func callbacksRunOnTheClientsCallbackQueueUnlessTheCallNamesOne() async throws {
        #if canImport(Darwin)
            #expect(KonexClient.defaultCallbackQueue == .main)
        #else
            #expect(KonexClient.defaultCallbackQueue == nil)  // no main loop can be assumed on Linux
        #endif
        let clientQueue = DispatchQueue(label: "client")
        let callQueue = DispatchQueue(label: "call")
        let key = DispatchSpecificKey<String>()
        clientQueue.setSpecific(key: key, value: "client")
        callQueue.setSpecific(key: key, value: "call")
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.anything, .string("ok"))
        let client = KonexClient(baseURL: api, transport: mock, callbackQueue: clientQueue)
        let seen = Lock<[String?]>([])
        for queue in [nil, callQueue] {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                client.request("x").responseString(
                    queue: queue,
                    onSuccess: { _ in
                        seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
                        done.resume()
                    }, onError: { _ in done.resume() })
            }
        }
        #expect(seen.value == ["client", "call"])
    }

    @Test func callbacksFromCodeOnNoActorRunOnTheClientsCallbackQueue() async throws {
        // A Konex 0.5 call site, a Swift 5 mode view model or a completion-handler wrapper is on no actor: its
        // callbacks run on the client's callbackQueue (the main queue on Apple platforms), as the docs promise.
        // They ran on a pool thread, so an old app updating its UI in onSuccess did it off the main thread.
        let clientQueue = DispatchQueue(label: "client")
        let key = DispatchSpecificKey<String>()
        clientQueue.setSpecific(key: key, value: "client")
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.anything, .string(#"[{"id": 1, "title": "a"}]"#))
        let client = KonexClient(baseURL: api, transport: mock, callbackQueue: clientQueue)
        let seen = Lock<[String]>([])
        func note(_ form: String) {
            seen.withLock { $0.append("\(form): \(DispatchQueue.getSpecific(key: key) ?? "elsewhere")") }
        }
        await client.request("x").responseData(onSuccess: { _ in note("data") }, onError: { _ in note("data failed") })
            .wait()
        await client.request("x").responseArray(
            of: Post.self, onSuccess: { _ in note("array") }, onError: { _ in note("array failed") }
        ).wait()
        await client.request("missing").validate(statusCode: [201]).responseString(
            onSuccess: { _ in note("string") }, onError: { _ in note("string's error") }
        ).wait()
        struct Posts: KonexRequest { let path = "posts" }
        await client.requestArray(
            of: Post.self, request: Posts(), onSuccess: { _ in note("Konex 1") },
            onError: { _ in note("Konex 1 failed") }
        ).wait()
        #expect(seen.value == ["data: client", "array: client", "string's error: client", "Konex 1: client"])
    }

    @MainActor @Test func callbacksFromTheMainActorStillRunOnIt() async throws {
        let clientQueue = DispatchQueue(label: "client")
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.anything, .string("ok"))
        let client = KonexClient(baseURL: api, transport: mock, callbackQueue: clientQueue)
        var delivered = false  // main-actor state, touched by the callback
        await client.request("x").responseString(onSuccess: { _ in delivered = true }, onError: { _ in }).wait()
        #expect(delivered)
    }

    @Test func callbackFormsTakeTheSameDecoderAsTheAsyncForms() async throws {
        struct Snake: Decodable, Sendable, Equatable { let userName: String }
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.anything, .string(#"{"user_name":"ada"}"#))
        let client = KonexClient.mocked(mock)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(
            try await client.request("x").responseObject(of: Snake.self, decoder: decoder) == Snake(userName: "ada"))
        let delivered = Lock<Snake?>(nil)
        await client.request("x").responseObject(
            of: Snake.self, decoder: decoder, onSuccess: { value in delivered.value = value }, onError: { _ in }
        ).wait()
        #expect(delivered.value == Snake(userName: "ada"))
    }

    @Test(arguments: [204, 205])
    func emptyStatusBodiesSucceedForDataAndEmpty(status: Int) async throws {
        let (client, _) = makeClient { $0.stub(.any("/v1/x"), .status(status)) }
        #expect(try await client.request("x").validate().responseData().isEmpty)
        #expect(try await client.request("x").response().statusCode == status)
        #expect(try await client.request("x").responseObject(of: Empty.self) == Empty())
        #expect(try await client.request("x").responseObject(of: Post?.self) == nil)
    }

    @Test func headAndEmpty200Succeed() async throws {
        let (client, _) = makeClient {
            $0.stub(.head("/v1/x"), .string("ignored"))
            $0.stub(.get("/v1/x"), .status(200))
        }
        var head = URLRequest(url: URL(string: "https://api.test/v1/x")!)
        head.httpMethod = "HEAD"
        #expect(try await client.request(head).responseData().isEmpty)
        #expect(try await client.request("x").responseObject(of: Empty.self) == Empty())
    }

    @Test(arguments: ["{\"deleted\": true}", "OK", "[1, 2]"])
    func emptyIgnoresWhateverBodyArrives(body: String) async throws {
        let (client, _) = makeClient { $0.stub(.delete("/v1/x"), .string(body)) }
        var request = URLRequest(url: URL(string: "https://api.test/v1/x")!)
        request.httpMethod = "DELETE"
        #expect(try await client.request(request).validate().responseObject(of: Empty.self) == Empty())
    }

    @Test func requiredValueFromEmptyBodyIsAClearError() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .status(204)) }
        let error = await expectThrows(KonexError.self) {
            try await client.request("x").responseObject(of: Post.self)
        }
        #expect(error?.stage == .decoding)
        #expect(error?.message.contains("empty body but a Post is required") == true)
    }

    @Test(arguments: [" ", "\r\n", " \t\n "])
    func aWhitespaceOnlyBodyIsAnEmptyBody(body: String) async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string(body)) }
        #expect(try await client.request("x").responseObject(of: Post?.self) == nil)
        let error = await expectThrows(KonexError.self) {
            try await client.request("x").responseObject(of: Post.self)
        }
        #expect(error?.message.contains("empty body but a Post is required") == true)
    }

    @Test func jsonAfterLeadingWhitespaceStillDecodes() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string("\n  {\"id\": 1, \"title\": \"a\"}")) }
        #expect(try await client.request("x").responseObject(of: Post.self) == Post(id: 1, title: "a"))
    }

    @Test func typedErrorBodies() async throws {
        let (client, _) = makeClient {
            $0.stub(
                .get("/v1/me"),
                .json(
                    APIError(code: "expired", message: "Token expired"), status: 401,
                    headers: ["WWW-Authenticate": "Bearer"]))
        }
        let error = await expectThrows(KonexError.self) {
            try await client.request("me").validate().responseObject(of: Post.self, errorType: APIError.self)
        }
        #expect(error?.stage == .validation)
        #expect(error?.statusCode == 401)
        #expect(error?.headers["WWW-Authenticate"] == "Bearer")
        #expect(error?.errorBody(as: APIError.self) == APIError(code: "expired", message: "Token expired"))
        let chained = await expectThrows(KonexError.self) {
            try await client.request("me").validate().decodingErrors(as: APIError.self).responseData()
        }
        #expect(chained?.errorBody(as: APIError.self)?.code == "expired")
    }

    @Test func mismatchedErrorBodyKeepsTheStatus() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string("<html>oops</html>", status: 502)) }
        let error = await expectThrows(KonexError.self) {
            try await client.request("x").validate().responseObject(of: Post.self, errorType: APIError.self)
        }
        #expect(error?.statusCode == 502)
        #expect(error?.errorBody == nil)
        #expect(
            error?.message.hasPrefix(
                "unacceptable status code 502 (expected 200..<300); the error body is not a APIError") == true)
    }
}
