import Foundation
import Konex
import KonexTesting
import Testing

/// HAR in both directions with a real capture tool: mitmproxy (pinned in scripts/requirements-mitmproxy.txt) writes
/// a HAR of a session through it as a reverse proxy in front of httpbin, and Konex replays it; a HAR that Konex
/// recorded is read back by mitmproxy (`mitmdump -nr`) without error and with every flow.
@Suite(.enabled(if: Mitmproxy.isAvailable && Server.isAvailable, Mitmproxy.skipReason), .serialized)
struct MitmproxyInteropTests {
    @Test func aHARThatMitmproxyWroteReplaysThroughKonex() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("konex-mitm-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("session.har")
        let port = try Mitmproxy.freePort()
        let proxy = try Mitmproxy.run([
            "--mode", "reverse:\(Server.url!.absoluteString)", "--listen-host", "127.0.0.1", "--listen-port", "\(port)",
            "--set", "hardump=\(capture.path)", "-q",
        ])
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let live = KonexClient(
            baseURL: base, transport: Live.transport(), timeout: .seconds(10))
        try await Mitmproxy.waitUntilListening(live)

        struct Search: KonexRequest {
            let path = "/get"
            var parameters: Parameters? { ["q": "a b", "x": "+"] }  // sent as %20 and %2B
        }
        struct Publish: KonexRequest {
            let path = "/post"
            let method: HTTPMethod = .post
            var body: RequestBody? { .json(["title": "Hello"] as JSON) }
        }
        let search = try await live.request(Search()).validate().response()
        let publish = try await live.request(Publish()).validate().response()
        let image = try await live.request("/image/png").validate().response()
        let teapot = try await live.request("/status/418").response()
        try Mitmproxy.stop(proxy)  // it writes the HAR as it shuts down

        let fixtures = try FixtureTransport(directory: FixtureDirectory(directory), clock: ImmediateClock())
        #expect(fixtures.skippedEntries.isEmpty)
        let replay = KonexClient(baseURL: base, transport: fixtures)
        #expect(try await replay.request(Search()).response().data == search.data)
        #expect(try await replay.request(Publish()).response().data == publish.data)
        let replayedImage = try await replay.request("/image/png").response()
        #expect(replayedImage.data == image.data)  // binary: base64 in the HAR
        #expect(replayedImage.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try await replay.request("/status/418").response().statusCode == teapot.statusCode)
        #expect(try await replay.request("/get").response().statusCode == 200)  // the readiness probe, recorded too
        #expect(fixtures.mock.unusedEndpoints.isEmpty)
    }

    @Test func aHARThatKonexRecordedLoadsInMitmproxy() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("konex-mitm-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("konex.har")
        let recorder = try RecordingTransport(
            live: Live.transport(), fixture: file, mode: .all, environment: [:])
        let client = KonexClient(baseURL: Server.url!, transport: recorder)
        _ = try await client.request("/json").validate().response()
        _ = try await client.request("/anything").withAdapter(.bearer("s3cr3t")).response()
        _ = try await client.request("/image/png").validate().response()

        let counter = directory.appendingPathComponent("count.py")
        try Data(
            """
            count = 0
            def response(flow):
                global count
                count += 1
            def done():
                print(f"konex-har-check: {count} flows")
            """.utf8
        ).write(to: counter)
        let (status, output) = try Mitmproxy.runToEnd(["-nr", file.path, "-s", counter.path, "--flow-detail", "0"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("konex-har-check: 3 flows"), "\(output)")
    }
}

@Suite struct MitmproxyPrerequisites {
    @Test func mitmproxyIsInstalledWhenRequired() {
        if Server.isRequired { #expect(Mitmproxy.isAvailable, "scripts/test must export KONEX_MITMDUMP") }
    }
}

/// Starts and stops `mitmdump` (scripts/test installs it and exports KONEX_MITMDUMP).
enum Mitmproxy {
    static let executable = ProcessInfo.processInfo.environment["KONEX_MITMDUMP"]
    static var isAvailable: Bool { executable.map { FileManager.default.isExecutableFile(atPath: $0) } ?? false }
    static let skipReason: Comment = "KONEX_MITMDUMP or KONEX_HTTPBIN_URL is not set: run scripts/test"

    static func run(_ arguments: [String]) throws -> Process {
        let process = Process()
        // The test runner's children can start with signals blocked or ignored, and Python keeps them so: a small
        // Python shim restores them before it becomes mitmdump, so SIGTERM shuts it down (and writes the HAR).
        let python = URL(fileURLWithPath: executable!).deletingLastPathComponent().appendingPathComponent("python")
        process.executableURL = python
        process.arguments =
            [
                "-c",
                "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); "
                    + "[signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM)]; "
                    + "os.execv(sys.argv[1], sys.argv[1:])",
                executable!,
            ] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func runToEnd(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable!)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Asks it to shut down (SIGTERM: it then writes its HAR) and waits, at most 20 s, for it to exit. Not SIGINT: a
    /// child of the test runner can start with SIGINT ignored, and Python keeps it ignored.
    static func stop(_ process: Process) throws {
        let pid = process.processIdentifier
        let killed = Lock(false)
        // `isRunning` is only updated by a run loop here, so wait with `waitUntilExit`, bounded by a watchdog.
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
            if kill(pid, 0) == 0 {
                killed.value = true
                kill(pid, SIGKILL)
            }
        }
        process.terminate()
        process.waitUntilExit()
        if killed.value { throw MitmproxyError(description: "mitmdump did not exit within 20 s of SIGTERM") }
    }

    /// Probes until mitmdump answers. A probe it accepted is given all the time it needs: one given up on is
    /// recorded in the HAR as a failed flow ("Client disconnected"), which a loaded fresh-clone run saw when the first
    /// probe's answer took more than a second. Before it listens, a probe is refused at once.
    static func waitUntilListening(_ client: KonexClient) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if (try? await client.request("/get").timeout(.seconds(30)).response()) != nil { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw MitmproxyError(description: "mitmdump did not answer within 60 s")
    }

    static func freePort() throws -> UInt16 {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = [
            "python3", "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
        ]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        guard let port = UInt16(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw MitmproxyError(description: "no free port: \(text)")
        }
        return port
    }
}

struct MitmproxyError: Error, CustomStringConvertible {
    let description: String
}
