// The Autobahn|Testsuite echo client: every case of the fuzzing server, through Konex's WebSocket over
// NIOWebSocketTransport, echoing each message as it came (text as text, binary as binary) until the server closes.
// scripts/autobahn starts the server (kosoku, a Python 3 runner of Autobahn's own case files) and reads the reports.
//
//   konex-autobahn ws://127.0.0.1:9001 [--agent NAME] [--compression [fresh]] [--cases 1,2,5-9] [--on-loop]
//
// `--on-loop` reads and echoes with a task executor preference for the connection's event loop
// (`WebSocket.taskExecutor`), as a server relaying small messages would.
// `--compression` offers permessage-deflate as `WebSocketOptions(compression: true)` does; `--compression fresh`
// offers `client_no_context_takeover` too, which the cases 13.2, 13.5 and 13.6 require of the offer.
import Foundation
import Konex

#if AsyncHTTPClient
    import KonexAsyncHTTPClient

    /// What the command line asked for.
    struct Arguments {
        var server = URL(string: "ws://127.0.0.1:9001")!
        var agent = "Konex"
        var compression: WebSocketCompressionOffer? = nil
        var cases: [Int]? = nil
        var onLoop = false

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                switch argument {
                case "--agent": agent = rest.popFirst() ?? agent
                case "--compression":
                    compression = WebSocketCompressionOffer()
                    if rest.first == "fresh" {
                        rest.removeFirst()
                        compression = WebSocketCompressionOffer(clientNoContextTakeover: true)
                    }
                case "--cases": cases = try Self.ranges(rest.popFirst() ?? "")
                case "--on-loop": onLoop = true
                default:
                    guard let url = URL(string: argument), url.scheme != nil else {
                        throw AutobahnFailure("not a server URL: \(argument)")
                    }
                    server = url
                }
            }
        }

        /// "1,2,5-9" as case numbers.
        static func ranges(_ text: String) throws -> [Int] {
            try text.split(separator: ",").flatMap { piece -> [Int] in
                let bounds = piece.split(separator: "-").compactMap { Int($0) }
                guard let first = bounds.first, bounds.count == piece.split(separator: "-").count else {
                    throw AutobahnFailure("not a case list: \(text)")
                }
                return Array(first...(bounds.last ?? first))
            }
        }
    }

    /// Read once: `ProcessInfo.environment` builds a dictionary of the whole environment on every call, which per
    /// message cost more than the message (300,000 instructions a round trip in 9.7).
    let tracing = ProcessInfo.processInfo.environment["KONEX_AUTOBAHN_TRACE"] != nil

    func trace(_ line: @autoclosure () -> String) {
        if tracing {
            FileHandle.standardError.write(Data((line() + "\n").utf8))
        }
    }

    struct AutobahnFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs one case: connects, echoes every message, and returns when the connection has ended (either way: the
    /// reports judge what happened on the wire).
    func run(case number: Int, on client: KonexClient, agent: String, options: WebSocketOptions, onLoop: Bool) async {
        do {
            let socket = try await client.request("runCase?case=\(number)&agent=\(agent)").timeout(.seconds(60))
                .webSocket(options: options)
            trace("case \(number): open")
            try await withTaskExecutorPreference(onLoop ? socket.taskExecutor : nil) {
                for try await message in socket.messages {
                    trace("case \(number): \(message)")
                    try await socket.send(message)
                }
            }
            trace("case \(number): closed \(String(describing: socket.closeCode))")
        } catch {
            trace("case \(number): \(error)")
            // A case that breaks the protocol on purpose ends with an error here; the server's report says whether
            // the client failed it as RFC 6455 requires.
        }
    }

    func main() async throws {
        let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
        let client = KonexClient(
            baseURL: arguments.server, transport: AsyncHTTPClientTransport.shared,
            webSocketTransport: NIOWebSocketTransport.shared)
        // Group 9 sends messages of 16 MiB; group 12 and 13 need the offer.
        var options = WebSocketOptions(maximumMessageSize: 64 << 20)
        options.compressionOffer = arguments.compression
        let count: Int
        if let cases = arguments.cases {
            count = cases.count
        } else {
            count = try await caseCount(client)
        }
        let numbers = arguments.cases ?? Array(1...count)
        let started = ContinuousClock.now
        for number in numbers {
            await run(case: number, on: client, agent: arguments.agent, options: options, onLoop: arguments.onLoop)
        }
        // The server writes its reports (and exits) when asked.
        // It exits as it answers: the connection may end without a close frame, which is no failure of a case.
        if let socket = try? await client.request("updateReports?agent=\(arguments.agent)").webSocket() {
            do { for try await _ in socket.messages {} } catch {}
        }
        print("konex-autobahn: \(numbers.count) cases as \(arguments.agent) in \(ContinuousClock.now - started)")
    }

    /// The suite's own counter: `/getCaseCount` sends the number as one text message, then closes.
    func caseCount(_ client: KonexClient) async throws -> Int {
        let socket = try await client.request("getCaseCount").timeout(.seconds(10)).webSocket()
        for try await message in socket.messages {
            if case .text(let text) = message, let count = Int(text) { return count }
        }
        throw AutobahnFailure(
            "getCaseCount closed (\(socket.closeCode.map(String.init(describing:)) ?? "no code")) without a count")
    }

    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            try await main()
        } catch {
            FileHandle.standardError.write(Data("konex-autobahn: \(error)\n".utf8))
            exit(1)
        }
        done.signal()
    }
    done.wait()
#else
    print("konex-autobahn needs the trait: swift run --traits AsyncHTTPClient konex-autobahn")
#endif
