import Foundation

/// Step 4's two ways to take the body besides memory: into a file, or as it arrives.
enum Received {
    /// Where a body went when it did not go to memory.
    struct Body {
        var file: URL?
        var stream: ByteStream?
    }

    /// Receives the body of `request` as `target` asks. For a file or a stream, the returned data is only the start
    /// of an error body (when the status is outside 200..<300), so validators and error models still see it.
    static func receive(
        _ request: URLRequest, over transport: any Transport, into target: BodyTarget, observer: TransferObserver?
    ) async throws -> (Data, HTTPURLResponse, Body) {
        switch target {
        case .memory:
            if let observer, let observing = transport as? any ObservingTransport {
                let (data, response) = try await observing.send(request, observer: observer)
                return (data, response, Body())
            }
            let (data, response) = try await transport.send(request)
            return (data, response, Body())
        case .file:
            let file: URL
            let response: HTTPURLResponse
            if let downloader = transport as? any DownloadTransport {
                (file, response) = try await downloader.download(request)
            } else {
                let data: Data
                (data, response) = try await transport.send(request)
                file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-\(UUID().uuidString).body")
                try data.write(to: file)
            }
            let isSuccess = (200..<300).contains(response.statusCode)
            let head = isSuccess ? Data() : BodyFile.prefix(of: file, limit: BodyFile.errorBodyLimit)
            return (head, response, Body(file: file))
        case .stream(let bufferLimit):
            let response: HTTPURLResponse
            var stream: ByteStream
            if let streamer = transport as? any StreamingTransport {
                (response, stream) = try await streamer.stream(request, bufferLimit: bufferLimit)
            } else {
                let data: Data
                (data, response) = try await transport.send(request)
                stream = ByteStream(data)
            }
            guard !(200..<300).contains(response.statusCode) else { return (Data(), response, Body(stream: stream)) }
            // An error body is read (up to the limit) for validators; whatever was read is given back first.
            let head = try await stream.take(upTo: BodyFile.errorBodyLimit)
            return (head, response, Body(stream: stream))
        }
    }
}
