import Foundation

/// The recorders of one request, called in order; empty (and free) when the client has no instrument.
struct Recorders: Sendable {
    let list: [any RequestRecorder]
    let started: Moment

    /// Asks each instrument whether it records this request.
    init(
        _ instruments: [any RequestInstrument], started: Moment,
        request: @autoclosure () -> InstrumentedRequest
    ) {
        self.started = started
        guard !instruments.isEmpty else {
            list = []
            return
        }
        let request = request()
        list = instruments.compactMap { $0.requestWillStart(request) }
    }

    var isEmpty: Bool { list.isEmpty }

    func attemptWillSend(_ request: inout TransportRequest, attempt: Int) {
        for recorder in list { recorder.attemptWillSend(&request, attempt: attempt) }
    }

    func attemptDidEnd(_ result: Result<ReceivedResponse, KonexError>, attempt: Int) {
        guard !list.isEmpty else { return }
        tellOfTransportResend(in: result, attempt: attempt)
        for recorder in list { recorder.attemptDidEnd(result, attempt: attempt) }
    }

    /// The transport sent this attempt twice on its own: instruments hear it as a retry by ``TransportResend``.
    // Not inlined: looking into the result in the pipeline's frame took room in every request's.
    @inline(never) private func tellOfTransportResend(in result: Result<ReceivedResponse, KonexError>, attempt: Int) {
        guard case .success(let received) = result, let reason = received.transportResend else { return }
        willRetry(
            RetryEvent(
                attempt: attempt,
                error: KonexError(
                    stage: .transport, message: reason, method: nil, url: received.response.url),
                retrier: TransportResend(), delay: .zero))
    }

    func willRetry(_ retry: @autoclosure () -> RetryEvent) {
        guard !list.isEmpty else { return }
        let retry = retry()
        for recorder in list { recorder.willRetry(retry) }
    }

    func end(_ result: Result<ResponseHead, KonexError>, attempts: Int) {
        guard !list.isEmpty else { return }
        let end = RequestEnd(result: result, attempts: attempts, duration: Moment.now - started)
        for recorder in list { recorder.requestDidEnd(end) }
    }
}

extension Recorders {
    /// The request got through: it ends now, when its streamed body ends, or (a WebSocket) when its connection
    /// closes: the answer carries the recorders to the ``WebSocket``, which ends them.
    func ended(_ answer: inout ReceivedResponse, to request: TransportRequest, attempts: Int) {
        guard !list.isEmpty else { return }
        if case .webSocket(let connection) = answer.reply.body.storage {
            answer.reply.body = ResponseBody(storage: .webSocket(.init(connection.channel, recorders: self)))
            return
        }
        guard let stream = answer.reply.stream else { return end(.success(answer.response), attempts: attempts) }
        let buffer = stream.buffer
        let response = answer.response
        buffer.onEnd {
            guard let error = buffer.endError else { return end(.success(response), attempts: attempts) }
            end(
                .failure(DataStream.konexError(error, request: request, response: response, attempt: attempts)),
                attempts: attempts)
        }
    }
}
