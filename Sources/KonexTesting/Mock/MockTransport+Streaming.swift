import Foundation
import Konex

extension MockTransport {
    /// Answers with the head at once and delivers a ``MockResponse/chunks(_:status:contentType:headers:then:)`` body
    /// chunk by chunk on the transport's clock; any other body is returned whole.
    func stream(_ request: TransportRequest, bufferLimit: Int) async throws -> (ResponseHead, ResponseBody) {
        let (response, wait, slot, built) = try pick(for: request)
        if wait > .zero { try await clock.sleep(for: wait) }
        try Task.checkCancellation()
        guard case .chunks(let chunks, let ending) = response.body, response.fault == nil else {
            let (data, head) = try await answer(request, with: response, slot: slot, built: built)
            return (head, ResponseBody(data))  // whole: a reader takes it as one chunk
        }
        let head = head(for: request, with: response, slot: slot, built: built)
        let producer = Lock<Task<Void, Never>?>(nil)
        let (body, continuation) = ByteStream.makeStream(bufferLimit: bufferLimit) { producer.value?.cancel() }
        let clock = self.clock
        producer.value = Task {
            do {
                for chunk in chunks {
                    if chunk.delay > .zero { try await clock.sleep(for: chunk.delay) }
                    guard continuation.yield(chunk.data) else { return }
                }
                switch ending {
                case .finish: continuation.finish()
                case .connectionLost: continuation.finish(throwing: URLError(.networkConnectionLost))
                case .hang: try await Self.hangUntilCancelled()
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return (head, ResponseBody(body))
    }
}
