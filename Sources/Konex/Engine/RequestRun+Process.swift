import Foundation

// Process: the accepted answer's body through the processors, and the instruments told the call got through.
extension RequestRun {
    /// The answer for its terminal, with its body after the processors.
    /// - Throws: ``KonexError`` of stage ``KonexError/Stage/processing`` when a processor throws.
    @inline(never) func process(_ answer: ReceivedResponse, of request: TransportRequest, attempts: Int) throws
        -> ReceivedResponse
    {
        var answer = answer
        answer.processed = try processedBody(of: answer, for: request)
        recorders.ended(&answer, to: request, attempts: attempts)
        return answer
    }

    /// The body after the processors, in order; `nil` when there are none to run (the received bytes pass through
    /// untouched).
    private func processedBody(of answer: ReceivedResponse, for request: TransportRequest) throws -> Data? {
        // Processors need a whole body in memory: a file's, a stream's or a connection's answer passes as it is.
        guard !processors.isEmpty, var data = answer.reply.body.data else { return nil }
        for processor in processors {
            do {
                data = try processor.process(data, response: answer.response)
            } catch {
                throw KonexError(
                    stage: .processing, message: "processor \(type(of: processor)) failed: \(error)",
                    method: request.method, url: request.url, request: request,
                    response: answer.response, data: data, underlyingError: error, attempt: answer.timing.attempt)
            }
        }
        return data
    }
}
