import Foundation
import Konex

// The checks, one requirement each.
extension TransportContract {
    /// Every check, in the order ``run(_:)`` runs them.
    public static let checks: [Check] = [
        Check(name: "every method reaches the server") { transport, server in
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
                let (data, response) = try await transport.send(request(server, "/anything", method: method))
                try require(response.statusCode == 200, "\(method): status \(response.statusCode)")
                try require(try json(data)["method"] as? String == method, "\(method): the server saw another method")
            }
        },
        Check(name: "request bodies from 0 B to 1 MiB arrive whole") { transport, server in
            for size in [0, 1, 65_536, 1 << 20] {
                var post = request(
                    server, "/anything", method: "POST", body: Data(String(repeating: "k", count: size).utf8))
                // Not a form (URLSession's default for a body): httpbin echoes a text body as `data`.
                post.setValue("text/plain", forHTTPHeaderField: "Content-Type")
                let (data, _) = try await transport.send(post)
                let echoed = (try json(data)["data"] as? String)?.utf8.count
                try require(echoed == size, "\(size) B sent, \(echoed.map(String.init) ?? "nothing") B arrived")
            }
        },
        Check(name: "Content-Length and chunked response bodies arrive whole") { transport, server in
            let (sized, _) = try await transport.send(request(server, "/range/102400"))
            try require(sized.count == 102_400, "/range/102400 gave \(sized.count) B")
            let (chunked, _) = try await transport.send(request(server, "/stream-bytes/50000?chunk_size=1000"))
            try require(chunked.count == 50_000, "/stream-bytes/50000 gave \(chunked.count) B")
        },
        Check(name: "header names in any case, repeated response headers joined") { transport, server in
            var mixed = request(server, "/anything")
            mixed.setValue("MiXeD", forHTTPHeaderField: "X-Konex-Case")
            let (data, _) = try await transport.send(mixed)
            let headers = try json(data)["headers"] as? [String: String] ?? [:]
            try require(headers["X-Konex-Case"] == "MiXeD", "the server saw \(headers)")
            let (_, response) = try await transport.send(request(server, "/response-headers?X-Two=a&X-Two=b"))
            let two = response.value(forHTTPHeaderField: "x-two")
            try require(two == "a, b" || two == "a,b", "repeated X-Two read as \(two ?? "nothing")")
        },
        Check(name: "204, 304 and HEAD have no body") { transport, server in
            let (empty, noContent) = try await transport.send(request(server, "/status/204"))
            try require(noContent.statusCode == 204 && empty.isEmpty, "204 with \(empty.count) B")
            var conditional = request(server, "/etag/konex")
            conditional.setValue("\"konex\"", forHTTPHeaderField: "If-None-Match")
            let (notModifiedBody, notModified) = try await transport.send(conditional)
            try require(notModified.statusCode == 304 && notModifiedBody.isEmpty, "304: \(notModified.statusCode)")
            let (head, headResponse) = try await transport.send(request(server, "/get", method: "HEAD"))
            try require(headResponse.statusCode == 200 && head.isEmpty, "HEAD with \(head.count) B")
        },
        Check(name: "redirects are followed within a host and across hosts") { transport, server in
            let (_, within) = try await transport.send(request(server, "/redirect/3"))
            try require(
                within.statusCode == 200 && within.url?.path == "/get",
                "ended at \(within.statusCode) \(within.url?.path ?? "")")
            // 127.0.0.1 and localhost are two hosts to a client.
            guard let port = server.port else { return }
            let other = "http://localhost:\(port)/get"
            let (_, across) = try await transport.send(
                request(
                    server, "/redirect-to?url=\(other.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"))
            try require(
                across.statusCode == 200 && across.url?.host == "localhost",
                "ended at \(across.url?.absoluteString ?? "")")
        },
        Check(name: "gzip bodies are decoded") { transport, server in
            let (data, _) = try await transport.send(request(server, "/gzip"))
            try require(try json(data)["gzipped"] as? Bool == true, "not decoded")
        },
        Check(name: "an unknown Content-Encoding passes through undecoded") { transport, server in
            let (data, response) = try await transport.send(
                request(server, "/response-headers?Content-Encoding=x-konex"))
            try require(response.statusCode == 200 && !data.isEmpty, "status \(response.statusCode), \(data.count) B")
        },
        Check(name: "a sub-second timeout fires at its time") { transport, server in
            var slow = request(server, "/delay/3")
            slow.timeoutInterval = 0.5
            let started = ContinuousClock.now
            do {
                _ = try await transport.send(slow)
                throw Violation("a 3 s answer arrived within a 0.5 s timeout")
            } catch let error as URLError where error.code == .timedOut {
                let took = started.duration(to: .now)
                try require(
                    took >= .milliseconds(400) && took < .milliseconds(900), "a 0.5 s timeout fired after \(took)")
            }
        },
        Check(name: "cancelling the task ends the transfer at once") { transport, server in
            let task = Task { try await transport.send(request(server, "/delay/5")) }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            task.cancel()
            do {
                _ = try await task.value
                throw Violation("a cancelled request succeeded")
            } catch is CancellationError {
            } catch let error as URLError where error.code == .cancelled {
            }
            try require(started.duration(to: .now) < .seconds(1), "took \(started.duration(to: .now)) to end")
        },
        Check(name: "a streamed body arrives as it is sent") { transport, server in
            guard let streamer = transport as? any StreamingTransport else { return }
            let (response, body) = try await streamer.stream(request(server, "/stream/20"), bufferLimit: 1 << 20)
            var lines = 0
            for try await chunk in body { lines += chunk.filter { $0 == 0x0A }.count }
            try require(response.statusCode == 200 && lines == 20, "\(lines) lines of 20")
        },
        Check(name: "256 requests in flight at once all succeed") { transport, server in
            let failures = await withTaskGroup(of: Int.self) { group in
                for index in 0..<256 {
                    group.addTask {
                        let result = try? await transport.send(request(server, "/anything/\(index)"))
                        return result?.1.statusCode == 200 ? 0 : 1
                    }
                }
                return await group.reduce(0, +)
            }
            try require(failures == 0, "\(failures) of 256 failed")
        },
    ]
}
