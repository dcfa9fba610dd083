import Foundation

// Adapt: the adapters rewrite the request; then it is announced: the instruments add what they carry, and the
// plugins see it as it is sent.
extension RequestRun {
    /// The request as this attempt sends it.
    /// - Throws: ``KonexError`` of stage ``KonexError/Stage/adaptation`` when an adapter throws.
    @_transparent func adapt(_ request: consuming TransportRequest, attempt: Int) async throws -> TransportRequest {
        if adapters.isEmpty { return request }
        return try await adapted(consume request, attempt: attempt)
    }

    /// The request as it goes: the instruments add what they carry (a trace context), then the plugins see it.
    // Apart from `adapt`, which consumes the request: returned after being lent to the plugins, it was copied once more
    // on every attempt (about 220 instructions with its destruction).
    @_transparent func announce(_ request: inout TransportRequest, attempt: Int) async {
        recorders.attemptWillSend(&request, attempt: attempt)
        if plugins.anyListens(.pluginDidSend) { await tellPlugins(sent: request) }
    }

    /// Each adapter in order gets the request: the only reference to it, so it changes without a copy.
    // A frame of its own, entered only when there are adapters: a loop that awaits keeps its element and iterator in
    // the async frame, and in `adapt` that room would be taken by every request.
    @inline(never) private func adapted(_ request: consuming TransportRequest, attempt: Int) async throws
        -> TransportRequest
    {
        for adapter in adapters {
            do {
                request = try await adapter.adapt(consume request)
            } catch {
                throw adaptationFailure(error, by: adapter, attempt: attempt)
            }
        }
        return request
    }

    /// The plugins see the request as sent.
    @inline(never) private func tellPlugins(sent request: TransportRequest) async {
        for plugin in plugins where !EarlierSignatures.isIdle(plugin, .pluginDidSend) {
            await plugin.didSendRequest(request)
        }
    }

    /// The error for an adapter that threw; it consumed the request, so the error names it from the endpoint.
    private func adaptationFailure(_ error: any Error, by adapter: any RequestAdapter, attempt: Int) -> KonexError {
        var failure = call.cancellationError()
        if !Task.isCancelled {
            failure.stage = .adaptation
            failure.message = "adapter \(type(of: adapter)) failed: \(error)"
            failure.underlyingError = error
        }
        failure.attempt = attempt
        return failure
    }
}

extension Layers<any KonexPlugin> {
    /// Whether any plugin may do something when told of `requirement`: a plugin that implements neither signature is
    /// not called, and when none would be, the step that tells them is not entered.
    func anyListens(_ requirement: EarlierSignatures.Requirement) -> Bool {
        if isEmpty { return false }
        for plugin in self where !EarlierSignatures.isIdle(plugin, requirement) { return true }
        return false
    }
}

extension EarlierSignatures {
    /// Whether `plugin`'s type is known to leave `requirement` to its defaults in both signatures.
    // Generic, so the type is the one the existential holds (the `Self` its default implementations record): asking
    // `type(of:)` of the existential looked up its dynamic type, 185 instructions a call, twice a request.
    static func isIdle<Plugin: KonexPlugin>(_ plugin: Plugin, _ requirement: Requirement) -> Bool {
        isIdle(Plugin.self, requirement)
    }
}
