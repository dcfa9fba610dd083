import AsyncHTTPClient
import Foundation
import HTTPTypes
import Konex
import KonexAsyncHTTPClient
import KonexOpenAPI
import NIOCore
import NIOHTTP1
import NIOPosix
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// swift run -c release --package-path Benchmarks/Peers openapi-peers [--smoke]
// What a generated client's every call costs in its transport: KonexOpenAPITransport (the whole Konex pipeline)
// against the stock swift-openapi-urlsession and swift-openapi-async-http-client transports, each over the same
// HTTP stack, sequential small GETs against one keep-alive loopback server in a process of its own. Rounds interleave
// the two sides (their order alternating), so both see the same machine; a round's ratio is Konex's time over the
// stock transport's, and the median ratio is printed with its spread. The generated code above the transport is the
// same for both sides, so it is left out: the ratios are the transport's alone, the strictest comparison.

/// Answers every request with the same small JSON body, keeping the connection open.
final class Answer: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    static let body = #"{"id":1,"title":"Hello"}"#

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var head = HTTPResponseHead(version: .http1_1, status: .ok)
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: "\(Self.body.utf8.count)")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: Self.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

if CommandLine.arguments.contains("--serve") {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(Answer())
            }
        }
        .bind(host: "127.0.0.1", port: 0).get()
    FileHandle.standardOutput.write(Data("\(channel.localAddress?.port ?? 0)\n".utf8))
    try await channel.closeFuture.get()
    exit(0)
}

let smoke = CommandLine.arguments.contains("--smoke")
let requests = smoke ? 50 : 2_000
let rounds = smoke ? 2 : 9

// The server, in a process of its own.
let server = Process()
server.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
server.arguments = ["--serve"]
let output = Pipe()
server.standardOutput = output
try server.run()
defer { server.terminate() }
var line = Data()
while !line.contains(0x0A) {
    let chunk = output.fileHandleForReading.availableData
    guard !chunk.isEmpty else { fatalError("the server process ended before it printed its port") }
    line.append(chunk)
}
let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
let baseURL = URL(string: "http://127.0.0.1:\(port)")!

/// One generated-client call, as the generated code makes it: the head, no body, the operation's name; the body read.
func call(_ transport: any ClientTransport) async throws {
    let request = HTTPRequest(
        method: .get, scheme: nil, authority: nil, path: "/posts/1", headerFields: [.accept: "application/json"])
    let (response, body) = try await transport.send(request, body: nil, baseURL: baseURL, operationID: "getPost")
    guard response.status == .ok, let body else { fatalError("unexpected \(response.status)") }
    let data = try await Data(collecting: body, upTo: 1 << 20)
    guard data.count == Answer.body.utf8.count else { fatalError("\(data.count) bytes") }
}

func seconds(_ transport: any ClientTransport) async throws -> Double {
    let started = ContinuousClock.now
    for _ in 0..<requests { try await call(transport) }
    let elapsed = started.duration(to: .now)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// The configuration both URLSession sides use: ephemeral, without URLCache (on Linux it lists a directory a request).
func configuration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    return configuration
}

let cases: [(name: String, konex: any ClientTransport, stock: any ClientTransport)] = [
    (
        "URLSession: Konex / swift-openapi-urlsession",
        KonexClient(transport: Konex.URLSessionTransport(configuration: configuration())).openAPITransport,
        OpenAPIURLSession.URLSessionTransport(configuration: .init(session: URLSession(configuration: configuration())))
    ),
    (
        "AsyncHTTPClient: Konex / swift-openapi-async-http-client",
        KonexClient(transport: KonexAsyncHTTPClient.AsyncHTTPClientTransport.shared).openAPITransport,
        OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport(configuration: .init(client: .shared))
    ),
]

print(
    "\(requests) sequential small GETs a side, \(rounds) rounds, a keep-alive loopback server (NIO) in its own process")
for (name, konex, stock) in cases {
    for _ in 0..<3 {  // warm-up: connections open, caches filled
        try await call(konex)
        try await call(stock)
    }
    var ratios: [Double] = []
    var konexTimes: [Double] = []
    var stockTimes: [Double] = []
    for round in 0..<rounds {
        let (a, b): (Double, Double)
        if round % 2 == 0 {
            a = try await seconds(konex)
            b = try await seconds(stock)
        } else {
            b = try await seconds(stock)
            a = try await seconds(konex)
        }
        konexTimes.append(a)
        stockTimes.append(b)
        ratios.append(a / b)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func micro(_ total: Double) -> String { String(format: "%.1f µs", total / Double(requests) * 1e6) }
    print(
        "\(name): \(String(format: "%.3f×", median(ratios))) median (rounds \(String(format: "%.3f", ratios.min()!))–\(String(format: "%.3f", ratios.max()!))); "
            + "\(micro(median(konexTimes))) vs \(micro(median(stockTimes))) a request")
}
