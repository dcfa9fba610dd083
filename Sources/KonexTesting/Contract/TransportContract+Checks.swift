import Foundation
import Konex

// The checks, one requirement each.
extension TransportContract {
    /// Every check, in the order ``run(_:)`` runs them: Konex's own, then the cases of the HTTP client API
    /// proposal's conformance suite that apply to a transport (`conformanceChecks`), then the Fetch standard's
    /// redirect rules as a client over the transport follows them (`fetchRedirectChecks`).
    public static let checks: [Check] = coreChecks + conformanceChecks + fetchRedirectChecks

    /// What Konex's pipeline relies on: methods, bodies, headers, redirects, encodings, timeouts, faults, streams.
    static let coreChecks: [Check] = [
        Check(name: "every method reaches the server") { context in
            let (transport, server) = (context.transport, context.server)
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
                let (data, response) = try await transport.data(for: request(server, "/anything", method: method))
                try require(response.statusCode == 200, "\(method): status \(response.statusCode)")
                try require(try json(data)["method"] as? String == method, "\(method): the server saw another method")
            }
        },
        Check(name: "request bodies from 0 B to 1 MiB arrive whole") { context in
            let (transport, server) = (context.transport, context.server)
            for size in [0, 1, 65_536, 1 << 20] {
                var post = request(
                    server, "/anything", method: "POST", body: Data(String(repeating: "k", count: size).utf8))
                // Not a form (URLSession's default for a body): httpbin echoes a text body as `data`.
                post.setValue("text/plain", forHTTPHeaderField: "Content-Type")
                let (data, _) = try await transport.data(for: post)
                let echoed = (try json(data)["data"] as? String)?.utf8.count
                try require(echoed == size, "\(size) B sent, \(echoed.map(String.init) ?? "nothing") B arrived")
            }
        },
        Check(name: "Content-Length and chunked response bodies arrive whole") { context in
            let (transport, server) = (context.transport, context.server)
            let (sized, _) = try await transport.data(for: request(server, "/range/102400"))
            try require(sized.count == 102_400, "/range/102400 gave \(sized.count) B")
            let (chunked, _) = try await transport.data(for: request(server, "/stream-bytes/50000?chunk_size=1000"))
            try require(chunked.count == 50_000, "/stream-bytes/50000 gave \(chunked.count) B")
        },
        Check(name: "header names in any case, repeated response headers joined") { context in
            let (transport, server) = (context.transport, context.server)
            var mixed = request(server, "/anything")
            mixed.setValue("MiXeD", forHTTPHeaderField: "X-Konex-Case")
            let (data, _) = try await transport.data(for: mixed)
            let headers = try json(data)["headers"] as? [String: String] ?? [:]
            try require(headers["X-Konex-Case"] == "MiXeD", "the server saw \(headers)")
            let (_, response) = try await transport.data(for: request(server, "/response-headers?X-Two=a&X-Two=b"))
            let two = response.value(forHTTPHeaderField: "x-two")
            try require(two == "a, b" || two == "a,b", "repeated X-Two read as \(two ?? "nothing")")
        },
        Check(name: "204, 304 and HEAD have no body") { context in
            let (transport, server) = (context.transport, context.server)
            let (empty, noContent) = try await transport.data(for: request(server, "/status/204"))
            try require(noContent.statusCode == 204 && empty.isEmpty, "204 with \(empty.count) B")
            var conditional = request(server, "/etag/konex")
            conditional.setValue("\"konex\"", forHTTPHeaderField: "If-None-Match")
            let (notModifiedBody, notModified) = try await transport.data(for: conditional)
            try require(notModified.statusCode == 304 && notModifiedBody.isEmpty, "304: \(notModified.statusCode)")
            let (head, headResponse) = try await transport.data(for: request(server, "/get", method: "HEAD"))
            try require(headResponse.statusCode == 200 && head.isEmpty, "HEAD with \(head.count) B")
        },
        Check(name: "a 3xx is the transport's answer: it never follows a redirect") { context in
            let (transport, server) = (context.transport, context.server)
            let (_, hop) = try await transport.data(for: request(server, "/redirect/3"))
            try require(
                hop.statusCode == 302 && hop.value(forHTTPHeaderField: "Location") != nil,
                "answered \(hop.statusCode) from \(hop.url.path): the transport followed the redirect")
        },
        Check(name: "through a client, redirects are followed hop by hop") { context in
            let within = try await context.client.request(request(context.server, "/redirect/3")).response()
            try require(
                within.statusCode == 200 && within.response.url.path == "/get" && within.redirects.count == 3,
                "ended at \(within.statusCode) \(within.response.url.path) after \(within.redirects)")
        },
        Check(name: "through a client, another origin never sees credentials") { context in
            // 127.0.0.1 and localhost are two origins to a client.
            guard let port = context.server.port else { throw Violation("the server URL has no port") }
            var withCredentials = redirectTo(context.server, "http://localhost:\(port)/anything", status: 302)
            for (name, value) in [
                ("Authorization", "Bearer contract-secret"), ("X-API-Key", "contract-key"), ("Cookie", "sid=contract"),
                ("X-Konex-Kept", "kept"),
            ] {
                withCredentials.setValue(value, forHTTPHeaderField: name)
            }
            let echo = try await context.client.request(withCredentials).response()
            let seen = try json(echo.data)["headers"] as? [String: String] ?? [:]
            try require(echo.response.url.host == "localhost", "ended at \(echo.response.url.absoluteString)")
            let leaked = ["Authorization", "X-Api-Key", "Cookie"].filter { seen[$0] != nil }
            try require(leaked.isEmpty, "the other origin received \(leaked)")
            try require(seen["X-Konex-Kept"] == "kept", "an ordinary header was dropped: \(seen)")
        },
        Check(name: "through a client, a redirect to a Unix socket or a file is refused") { context in
            for target in [
                "http+unix://%2Fvar%2Frun%2Fdocker.sock/info", "unix:///var/run/docker.sock", "file:///etc/passwd",
            ] {
                try await requireRedirectRefused(
                    redirectTo(context.server, target, status: 302), through: context.client, "a redirect to \(target)")
            }
        },
        Check(name: "gzip bodies are decoded") { context in
            let (transport, server) = (context.transport, context.server)
            let (data, _) = try await transport.data(for: request(server, "/gzip"))
            try require(try json(data)["gzipped"] as? Bool == true, "not decoded")
        },
        Check(name: "an unknown Content-Encoding passes through undecoded") { context in
            let (transport, server) = (context.transport, context.server)
            let (data, response) = try await transport.data(
                for:
                    request(server, "/response-headers?Content-Encoding=x-konex"))
            try require(response.statusCode == 200 && !data.isEmpty, "status \(response.statusCode), \(data.count) B")
        },
        Check(name: "a sub-second timeout fires at its time") { context in
            let (transport, server) = (context.transport, context.server)
            var slow = request(server, "/delay/3")
            slow.timeoutInterval = 0.5
            let started = ContinuousClock.now
            do {
                _ = try await transport.data(for: slow)
                throw Violation("a 3 s answer arrived within a 0.5 s timeout")
            } catch let error where TransportFailure.Kind(of: error) == .timedOut {
                let took = started.duration(to: .now)
                try require(took >= .milliseconds(400), "a 0.5 s timeout fired after \(took)")
                try requireInTime(took < .milliseconds(900), "a 0.5 s timeout fired after \(took)")
            }
        },
        Check(name: "cancelling the task ends the transfer at once") { context in
            let (transport, server) = (context.transport, context.server)
            let task = Task { try await transport.data(for: request(server, "/delay/5")) }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            task.cancel()
            do {
                _ = try await task.value
                throw Violation("a cancelled request succeeded")
            } catch is CancellationError {
            } catch let error as URLError where error.code == .cancelled {
            }
            try requireInTime(started.duration(to: .now) < .seconds(1), "took \(started.duration(to: .now)) to end")
        },
        Check(name: "a streamed body arrives as it is sent") { context in
            let (transport, server) = (context.transport, context.server)
            let (response, body) = try await stream(
                request(server, "/stream/20"), over: transport, bufferLimit: 1 << 20)
            var lines = 0
            for try await chunk in body { lines += chunk.filter { $0 == 0x0A }.count }
            try require(response.statusCode == 200 && lines == 20, "\(lines) lines of 20")
        },
        Check(name: "response bodies of 16 MiB and 64 MiB arrive whole and in order") { context in
            for size in [16 << 20, 64 << 20] {
                let (data, response) = try await context.transport.data(for: request(context.faults, "/bytes/\(size)"))
                try require(response.statusCode == 200, "/bytes/\(size): status \(response.statusCode)")
                try require(data.count == size, "\(size) B sent, \(data.count) B arrived")
                try require(data == ContractServer.pattern(count: size), "\(size) B arrived out of order or changed")
            }
        },
        Check(name: "request bodies of 16 MiB and 64 MiB arrive whole") { context in
            for size in [16 << 20, 64 << 20] {
                var upload = request(
                    context.faults, "/upload", method: "POST", body: ContractServer.pattern(count: size))
                upload.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
                let (data, _) = try await context.transport.data(for: upload)
                let answer = String(decoding: data.prefix(200), as: UTF8.self)
                try require(answer == "\(size) matches", "\(size) B sent; the server read `\(answer)`")
            }
        },
        Check(name: "a server that closes before the promised body ends is an error, not a short body") { context in
            _ = try await requireFailure(
                of: request(context.faults, "/close-early"), through: context.transport, within: .seconds(5),
                "1,000 B promised, 100 B sent, then closed")
        },
        Check(name: "a server that resets the connection mid-body is an error") { context in
            _ = try await requireFailure(
                of: request(context.faults, "/reset"), through: context.transport, within: .seconds(5),
                "reset after 100 B of 1,000")
        },
        Check(name: "a server that stalls mid-body times out") { context in
            let error = try await requireFailure(
                of: request(context.faults, "/stall", timeout: 1), through: context.transport, within: .seconds(4),
                "10 B of 1,000, then silence, with a 1 s timeout")
            try require(
                TransportFailure.Kind(of: error) == .timedOut,
                "failed with \(error), not a timeout (TransportFailure or URLError)")
        },
        Check(name: "cancelling the task while the body arrives ends the transfer at once") { context in
            let transport = context.transport
            let stalled = request(context.faults, "/stall", timeout: 30)
            let task = Task { try await transport.data(for: stalled) }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            task.cancel()
            do {
                let (data, _) = try await task.value
                throw Violation("a cancelled transfer succeeded with \(data.count) B")
            } catch is CancellationError {
            } catch let error as URLError where error.code == .cancelled {
            }
            try requireInTime(started.duration(to: .now) < .seconds(1), "took \(started.duration(to: .now)) to end")
        },
        Check(name: "1xx informational responses are skipped for the final response") { context in
            let (data, response) = try await context.transport.data(for: request(context.faults, "/informational"))
            try require(
                response.statusCode == 200 && data == Data("final".utf8),
                "got \(response.statusCode) with `\(String(decoding: data.prefix(80), as: UTF8.self))`")
        },
        Check(name: "a 3xx keeps its body") { context in
            let (data, response) = try await context.transport.data(for: request(context.faults, "/moved"))
            try require(response.statusCode == 302, "status \(response.statusCode), not the 302 itself")
            try require(
                data == Data("moved here".utf8),
                "the 302's body arrived as \(data.count) B: `\(String(decoding: data.prefix(80), as: UTF8.self))`")
        },
        Check(name: "a slow reader of a streamed body gets every byte (back pressure)") { context in
            let size = 8 << 20
            let (response, body) = try await stream(
                request(context.faults, "/bytes/\(size)"), over: context.transport, bufferLimit: 256 << 10)
            try require(response.statusCode == 200, "status \(response.statusCode)")
            var received = 0
            var chunks = 0
            for try await chunk in body {
                received += chunk.count
                chunks += 1
                // The first chunks are read slowly: the server could send everything in that time.
                if chunks <= 10 { try await Task.sleep(for: .milliseconds(50)) }
            }
            try require(received == size, "\(received) B of \(size)")
        },
        Check(name: "a body asked for as a file arrives whole") { context in
            let size = 4 << 20
            let (response, body) = try await context.transport.send(
                TransportRequest(request(context.faults, "/bytes/\(size)")), context: TransportContext(delivery: .file))
            let data = try await body.collect(upTo: size)
            try require(response.statusCode == 200, "status \(response.statusCode)")
            try require(data == ContractServer.pattern(count: size), "the file holds \(data.count) B of \(size)")
        },
        Check(name: "256 requests in flight at once all succeed") { context in
            let (transport, server) = (context.transport, context.server)
            // Each request's failure, if any, as text: a count alone says nothing about which way it failed.
            let failures = await withTaskGroup(of: String?.self) { group in
                for index in 0..<256 {
                    group.addTask {
                        do {
                            let (_, response) = try await transport.data(for: request(server, "/anything/\(index)"))
                            return response.statusCode == 200 ? nil : "#\(index): status \(response.statusCode)"
                        } catch {
                            return "#\(index): \(error)"
                        }
                    }
                }
                return await group.compactMap { $0 }.reduce(into: [String]()) { $0.append($1) }
            }
            try require(failures.isEmpty, "\(failures.count) of 256 failed, first \(failures.prefix(3))")
        },
    ]
}
