import Foundation
import Konex

// The cases of the HTTP client API proposal's conformance suite (apple/swift-http-api-proposal,
// `HTTPClientConformance`) that apply to a Konex transport, beside Konex's own checks. Those that do not apply, and
// why: request-body streaming (1-byte chunks echoed interleaved) needs a streamed request body, which a `URLRequest`
// does not carry; every method, a 1 MB echo, 100 requests in flight, cancelling before the head and before the body,
// an endless redirect and a body cut short are among Konex's own checks already.
extension TransportContract {
    static let conformanceChecks: [Check] = [
        Check(name: "deflate and identity bodies are read as sent") { context in
            let (transport, server) = (context.transport, context.server)
            let (deflated, _) = try await transport.data(for: request(server, "/deflate"))
            try require(try json(deflated)["deflated"] as? Bool == true, "a deflate body was not decoded")
            var identity = request(server, "/anything")
            identity.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            let (plain, response) = try await transport.data(for: identity)
            try require(response.statusCode == 200 && (try json(plain)["method"] as? String) == "GET", "identity")
        },
        Check(name: "a custom and an empty header value are sent as they are") { context in
            let (transport, server) = (context.transport, context.server)
            var custom = request(server, "/headers")
            custom.setValue("a value; with=punctuation, and spaces", forHTTPHeaderField: "X-Konex-Custom")
            custom.setValue("", forHTTPHeaderField: "X-Konex-Empty")
            let (data, _) = try await transport.data(for: custom)
            let headers = try json(data)["headers"] as? [String: String] ?? [:]
            try require(
                headers["X-Konex-Custom"] == "a value; with=punctuation, and spaces", "custom value: \(headers)")
            try require(headers["X-Konex-Empty"] == "", "the empty X-Konex-Empty did not arrive empty: \(headers)")
        },
        Check(name: "a header sent with several values arrives with all of them") { context in
            let (transport, server) = (context.transport, context.server)
            var several = request(server, "/headers")
            several.addValue("first", forHTTPHeaderField: "X-Konex-Many")
            several.addValue("second", forHTTPHeaderField: "X-Konex-Many")
            let (data, _) = try await transport.data(for: several)
            let value = (try json(data)["headers"] as? [String: String] ?? [:])["X-Konex-Many"]
            try require(
                value == "first,second" || value == "first, second", "X-Konex-Many arrived as \(value ?? "nothing")")
        },
        Check(name: "a 404 with an empty body is a response, not an error") { context in
            let (transport, server) = (context.transport, context.server)
            let (data, response) = try await transport.data(for: request(server, "/status/404"))
            try require(response.statusCode == 404 && data.isEmpty, "status \(response.statusCode), \(data.count) B")
        },
        Check(name: "status 999 is passed through") { context in
            let (data, response) = try await context.transport.data(for: request(context.faults, "/status-999"))
            try require(
                response.statusCode == 999 && data == Data("odd".utf8), "status \(response.statusCode), \(data.count) B"
            )
        },
        Check(name: "a status line without a reason phrase is read") { context in
            let (data, response) = try await context.transport.data(for: request(context.faults, "/no-reason"))
            try require(response.statusCode == 200 && data == Data("ok".utf8), "status \(response.statusCode)")
        },
        Check(name: "a status line whose version is not `HTTP` in capitals is an error") { context in
            // RFC 9112 §2.3: the HTTP-name is case-sensitive; `Http/1.1` is not HTTP/1.1.
            _ = try await requireFailure(
                of: request(context.faults, "/lowercase-version", timeout: 10), through: context.transport,
                within: .seconds(5), "a status line `Http/1.1 200 OK`")
        },
        Check(name: "conflicting Content-Length values are an error") { context in
            // RFC 9112 §6.3: a list of differing lengths is unrecoverable; neither 10 nor 4 may be believed.
            _ = try await requireFailure(
                of: request(context.faults, "/conflicting-length", timeout: 10), through: context.transport,
                within: .seconds(5), "`Content-Length: 10, 4`")
        },
        Check(name: "a Content-Length that is not a length is an error, never read by its leading digits") { context in
            // RFC 9110 §8.6 (1*DIGIT) and the Fetch standard's "extract a length": `30,` is a list with an empty
            // element, `30s`, `0x20` and `+30` are no length; libcurl read the first two as 30 and the third as 0.
            for (path, field) in ContractServer.invalidLengths.sorted(by: { $0.key < $1.key }) {
                _ = try await requireFailure(
                    of: request(context.faults, path, timeout: 10), through: context.transport,
                    within: .seconds(5), "`Content-Length: \(field)` before 40 bytes")
            }
        },
        Check(name: "a chunked body with trailer fields is read whole") { context in
            let (data, response) = try await context.transport.data(for: request(context.faults, "/trailers"))
            try require(
                response.statusCode == 200 && data == Data("hello".utf8),
                "status \(response.statusCode), `\(String(decoding: data.prefix(40), as: UTF8.self))`")
        },
        Check(name: "brotli is asked for only where it is decoded") { context in
            let (transport, server) = (context.transport, context.server)
            let (echo, _) = try await transport.data(for: request(server, "/headers"))
            let asked = (try json(echo)["headers"] as? [String: String] ?? [:])["Accept-Encoding"] ?? ""
            guard asked.lowercased().contains("br") else { return }
            let (body, _) = try await transport.data(for: request(server, "/brotli"))
            try require(
                (try? json(body))?["brotli"] as? Bool == true,
                "`Accept-Encoding: \(asked)` asks for brotli, and a brotli body arrived undecoded")
        },
        Check(name: "URL parameters arrive as sent, escapes included") { context in
            let (transport, server) = (context.transport, context.server)
            let (data, _) = try await transport.data(
                for: request(server, "/get?plain=1&space=two%20words&amp=a%26b&utf8=%C3%A9t%C3%A9&empty="))
            let args = try json(data)["args"] as? [String: String] ?? [:]
            try require(
                args == ["plain": "1", "space": "two words", "amp": "a&b", "utf8": "été", "empty": ""],
                "the server read \(args)")
        },
        Check(name: "an answer that is not HTTP is an error, not a hang") { context in
            _ = try await requireFailure(
                of: request(context.faults, "/not-http", timeout: 10), through: context.transport,
                within: .seconds(5), "an SSH banner instead of HTTP")
        },
        Check(name: "204 and 304 that announce a Content-Length end without a body") { context in
            var (failures, slow): ([String], [String]) = ([], [])
            for (path, status) in [("/no-content-with-length", 204), ("/not-modified-with-length", 304)] {
                let started = ContinuousClock.now
                do {
                    let (data, response) = try await context.transport.data(
                        for: request(context.faults, path, timeout: 5))
                    let took = started.duration(to: .now)
                    if response.statusCode != status || !data.isEmpty {
                        failures.append("\(status): status \(response.statusCode), \(data.count) B after \(took)")
                    } else if took > .seconds(3) {
                        slow.append("\(status): right, but after \(took)")
                    }
                } catch {
                    failures.append("\(status): failed after \(started.duration(to: .now)): \(error)")
                }
            }
            try require(failures.isEmpty, (failures + slow).joined(separator: "; "))
            try requireInTime(slow.isEmpty, slow.joined(separator: "; "))
        },
        Check(name: "HEAD keeps its Content-Length and reads no body") { context in
            let started = ContinuousClock.now
            let (data, response) = try await context.transport.data(
                for:
                    request(context.faults, "/head-with-length", method: "HEAD", timeout: 10))
            try require(response.statusCode == 200 && data.isEmpty, "status \(response.statusCode), \(data.count) B")
            try require(
                response.value(forHTTPHeaderField: "Content-Length") == "1000",
                "Content-Length \(response.value(forHTTPHeaderField: "Content-Length") ?? "gone")")
            try requireInTime(started.duration(to: .now) < .seconds(3), "waited for a body a HEAD never has")
        },
        Check(name: "a body without a length ends when the server closes") { context in
            let (data, response) = try await context.transport.data(for: request(context.faults, "/no-length"))
            try require(
                response.statusCode == 200 && data == Data("until the end".utf8),
                "\(String(decoding: data, as: UTF8.self))")
        },
        Check(name: "an empty chunked body is empty") { context in
            let (data, response) = try await context.transport.data(for: request(context.faults, "/empty-chunked"))
            try require(response.statusCode == 200 && data.isEmpty, "status \(response.statusCode), \(data.count) B")
        },
        Check(name: "reading part of a streamed body, then stopping, leaves the transport usable") { context in
            let (transport, server) = (context.transport, context.server)
            let (_, body) = try await stream(
                request(server, "/drip?numbytes=50&duration=5"), over: transport, bufferLimit: 1)
            var iterator = body.makeAsyncIterator()
            let first = try await iterator.next()
            try require(first?.isEmpty == false, "no first chunk")
            body.cancel()
            let started = ContinuousClock.now
            let (after, response) = try await transport.data(for: request(server, "/get"))
            try require(response.statusCode == 200 && !after.isEmpty, "the next request: \(response.statusCode)")
            try requireInTime(
                started.duration(to: .now) < .seconds(3), "the next request waited \(started.duration(to: .now))")
        },
        Check(name: "through a client, a 307 with a body that cannot be sent again is returned, not followed") {
            context in
            var post = redirectTo(context.server, "/anything", status: 307, method: "POST")
            post.httpBodyStream = InputStream(data: Data("once".utf8))
            let response = try await context.client.request(post).response()
            try require(response.statusCode == 307, "a one-shot body was followed to \(response.statusCode)")
        },
        Check(name: "a request body streamed while the answer streams back: each chunk echoed before the next goes") {
            context in
            // The proposal's echo/speak interleave: the server writes back each chunk of the request's body as it
            // arrives; the next chunk is written only once the echo of the last one was read.
            let (chunks, writer) = AsyncThrowingStream.makeStream(of: Data.self)
            defer { writer.finish() }
            var head = RequestHead(method: .post, url: context.faults.appendingPathComponent("echo-chunks"))
            head.timeout = .seconds(10)
            writer.yield(Data("speak 0;".utf8))
            let (response, body) = try await context.transport.send(
                TransportRequest(head: head, body: .chunks(chunks)),
                context: TransportContext(delivery: .incremental, bufferLimit: 1 << 20))
            try require(response.statusCode == 200, "status \(response.statusCode)")
            var echoed = Data()
            var iterator = body.makeAsyncIterator()
            for turn in 0..<5 {
                let said = Data("speak \(turn);".utf8)
                while echoed.count < said.count {
                    guard let piece = try await iterator.next() else {
                        throw Violation("the answer ended before the echo of chunk \(turn)")
                    }
                    echoed.append(piece)
                }
                try require(echoed.prefix(said.count) == said, "chunk \(turn) came back as \(echoed)")
                echoed = Data(echoed.dropFirst(said.count))
                if turn < 4 { writer.yield(Data("speak \(turn + 1);".utf8)) }
            }
            writer.finish()
            while let rest = try await iterator.next() { echoed.append(rest) }
            try require(echoed.isEmpty, "\(echoed.count) bytes after the last echo")
        },
        Check(name: "through a client with a cookie jar, every cookie an answer sets is sent back, once") { context in
            // The transport's part: each `Set-Cookie` line reaches the client (apart, or joined as Foundation joins
            // them), and a request whose cookies are a jar's gets none added from a storage of the transport's own.
            let jar = CookieJar()
            let client = KonexClient(transport: context.transport, cookieJar: jar)
            let set = try await client.request(
                request(context.server, "/response-headers?Set-Cookie=konex%3D1&Set-Cookie=other%3D2%3B%20Path%3D%2F")
            ).response()
            try require(set.statusCode == 200, "status \(set.statusCode)")
            let kept = Set(jar.all.map { "\($0.name)=\($0.value)" })
            try require(kept == ["konex=1", "other=2"], "the jar kept \(kept.sorted())")
            let data = try await client.request(request(context.server, "/headers")).responseData()
            let sent = (try json(data)["headers"] as? [String: String] ?? [:])["Cookie"]
            try require(sent == "konex=1; other=2", "the next request sent Cookie: \(sent ?? "nothing")")
        },
    ]
}
