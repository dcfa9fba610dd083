import Foundation
import Konex

extension Benchmarks {
    /// Streaming cases: time to first event, throughput, a slow consumer's memory, and the SSE parser alone; each
    /// by its id, so one that fails (a loaded machine can leave the throughput reader a buffer behind) fails alone.
    func streamingCases() -> [(String, () async throws -> Result)] {
        [
            ("stream_first_event", firstEvent), ("stream_throughput", throughput),
            ("stream_slow_consumer", slowConsumer), ("sse_parse", { sseParse() }),
        ]
    }

    /// `stream_first_event`: the server sends one event, then waits a second; time from the request to that event.
    private func firstEvent() async throws -> Result {
        let raw = RawStreamer()
        let url = base.appendingPathComponent("sse-first")
        let konex = {
            try await measure {
                let stream = try await client.request("/sse-first").stream()
                var events = stream.events().makeAsyncIterator()
                _ = try await events.next()
                stream.cancel()
            }
        }
        let baseline = { await measure { await raw.timeToFirstByte(url) } }
        _ = try await konex()
        _ = await baseline()
        // Each round costs about a millisecond, so many rounds steady the median.
        let (a, b) = try await interleaved(rounds: config.rounds * 5, konex, baseline)
        let konexMs = a.map(\.wall).median * 1e3
        let rawMs = b.map(\.wall).median * 1e3
        let ratios = zip(a, b).map { $0.wall / $1.wall }.sorted()
        return Result(
            id: "stream_first_event", konex: konexMs, baseline: rawMs, ratio: konexMs / rawMs,
            unit: "ms to first event",
            detail: String(
                format:
                    "one event, then 1 s of silence; vs a raw data delegate %+.3f ms; per-round ratio p25–p75 %.2f–%.2f×",
                konexMs - rawMs, ratios[ratios.count / 4], ratios[ratios.count * 3 / 4]))
    }

    /// `stream_throughput`: a large body in 64 KB writes, read chunk by chunk.
    private func throughput() async throws -> Result {
        let size = config.streamMB << 20
        let raw = RawStreamer()
        let url = base.appendingPathComponent("generated/\(size)")
        let konex = {
            try await measure {
                var bytes = 0
                for try await chunk in try await client.request("/generated/\(size)").stream().chunks {
                    bytes += chunk.count
                }
                guard bytes == size else { throw ServerError("short body: \(bytes)") }
            }
        }
        let baseline = {
            try await measure {
                guard try await raw.count(url) == size else { throw ServerError("short body") }
            }
        }
        let (a, b) = try await interleaved(rounds: config.rounds * 2, konex, baseline)
        let konexMBs = Double(config.streamMB) / a.map(\.wall).median
        let rawMBs = Double(config.streamMB) / b.map(\.wall).median
        return Result(
            id: "stream_throughput", konex: konexMBs, baseline: rawMBs, ratio: konexMBs / rawMBs, unit: "MB/s",
            detail: String(
                format:
                    "%d MB in 64 KB pieces; stream().chunks vs a raw data delegate (higher is better); CPU %.2f× the raw",
                config.streamMB, a.map(\.cpu).median / b.map(\.cpu).median))
    }

    /// `stream_slow_consumer`: the server sends 100k events at once; the reader sleeps 1 ms per event.
    private func slowConsumer() async throws -> Result {
        let count = config.slowEvents
        var consumed = 0
        let growth = try await peakGrowth {
            let stream = try await client.request("/sse-many/\(count)").stream()
            let started = ContinuousClock.now
            for try await _ in stream.events() {
                consumed += 1
                try await Task.sleep(for: .milliseconds(1))
                if ContinuousClock.now - started > .seconds(2) { break }
            }
            stream.cancel()
        }
        return Result(
            id: "stream_slow_consumer", konex: Double(growth) / 1_048_576, baseline: nil, ratio: nil,
            unit: "MB peak RSS growth",
            detail:
                "\(count) events sent at once (~6 MB); the reader sleeps 1 ms an event and read \(consumed) in 2 s (buffer limit \(ByteStream.defaultBufferLimit >> 20) MiB)"
        )
    }

    /// `sse_parse`: an event stream held in memory, parsed in 64 KB chunks.
    private func sseParse() -> Result {
        let (stream, events) = sampleEventStream(megabytes: config.parseMB)
        let chunks = stride(from: 0, to: stream.count, by: 65_536).map {
            stream[$0..<Swift.min($0 + 65_536, stream.count)]
        }
        var seconds: [Double] = []
        for _ in 0..<Swift.max(3, config.rounds) {
            let start = ContinuousClock.now
            var parser = ServerSentEventParser()
            var parsed = 0
            for chunk in chunks { try? parser.parse(chunk) { _ in parsed += 1 } }
            seconds.append((ContinuousClock.now - start) / .seconds(1))
            precondition(parsed == events)
        }
        let megabytesPerSecond = Double(stream.count) / 1_048_576 / seconds.median
        return Result(
            id: "sse_parse", konex: megabytesPerSecond, baseline: nil, ratio: nil, unit: "MB/s",
            detail: "\(events) events, \(stream.count) bytes in 64 KB chunks (peers side by side: Benchmarks/Peers)")
    }
}
