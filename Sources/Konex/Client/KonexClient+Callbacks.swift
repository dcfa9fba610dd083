import Foundation

// The original Konex client methods, kept as conveniences over the DataRequest chain so code written for Konex 1
// keeps reading the same (with `Decodable` models in place of `KonexJSONDecodable`).
extension KonexClient {
    /// Where callbacks run by default: the main queue on Apple platforms, so `onSuccess` can update the UI directly;
    /// `nil` (the task that ran the request) on Linux, where a process need not run a main loop and a main-queue
    /// callback could wait forever.
    public static var defaultCallbackQueue: DispatchQueue? {
        #if canImport(Darwin)
            .main
        #else
            nil
        #endif
    }

    /// Sends `request` with extra components and delivers the body parsed as ``JSON``.
    /// - Parameters:
    ///   - request: The endpoint.
    ///   - plugins: Plugins for this call, after the client's and the request's.
    ///   - responseProcessors: Processors for this call.
    ///   - responseValidators: Validators for this call.
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the parsed body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request.
    @discardableResult
    public func request(
        request: some KonexRequest, plugins: [any KonexPlugin] = [],
        responseProcessors: [any KonexResponseProcessor] = [], responseValidators: [any KonexResponseValidator] = [],
        isolation: isolated (any Actor)? = #isolation, onSuccess: @escaping (JSON) -> Void,
        onError: @escaping (any Error) -> Void
    ) -> RequestHandle {
        chain(request, plugins, responseProcessors, responseValidators)
            .responseJSON(isolation: isolation, onSuccess: onSuccess, onError: { onError($0) })
    }

    /// Sends `request` and delivers one decoded object.
    @discardableResult
    public func requestObject<T: Decodable & Sendable>(
        of type: T.Type, request: some KonexRequest, plugins: [any KonexPlugin] = [],
        responseProcessors: [any KonexResponseProcessor] = [], responseValidators: [any KonexResponseValidator] = [],
        isolation: isolated (any Actor)? = #isolation, onSuccess: @escaping (T) -> Void,
        onError: @escaping (any Error) -> Void
    ) -> RequestHandle {
        chain(request, plugins, responseProcessors, responseValidators)
            .responseObject(of: type, isolation: isolation, onSuccess: onSuccess, onError: { onError($0) })
    }

    /// The Konex 1 spelling of
    /// ``requestObject(of:request:plugins:responseProcessors:responseValidators:isolation:onSuccess:onError:)-23son``.
    @available(
        *, deprecated,
        renamed: "requestObject(of:request:plugins:responseProcessors:responseValidators:isolation:onSuccess:onError:)"
    )
    @discardableResult
    public func requestObject<T: Decodable & Sendable>(
        ofType type: T.Type, request: some KonexRequest, plugins: [any KonexPlugin] = [],
        responseProcessors: [any KonexResponseProcessor] = [], responseValidators: [any KonexResponseValidator] = [],
        onSuccess: @escaping @Sendable (T) -> Void, onError: @escaping @Sendable (any Error) -> Void
    ) -> RequestHandle {
        requestObject(
            of: type, request: request, plugins: plugins, responseProcessors: responseProcessors,
            responseValidators: responseValidators, onSuccess: onSuccess, onError: onError)
    }

    /// Sends `request` and delivers a decoded array.
    @discardableResult
    public func requestArray<T: Decodable & Sendable>(
        of type: T.Type, request: some KonexRequest, plugins: [any KonexPlugin] = [],
        responseProcessors: [any KonexResponseProcessor] = [], responseValidators: [any KonexResponseValidator] = [],
        isolation: isolated (any Actor)? = #isolation, onSuccess: @escaping ([T]) -> Void,
        onError: @escaping (any Error) -> Void
    ) -> RequestHandle {
        chain(request, plugins, responseProcessors, responseValidators)
            .responseArray(of: type, isolation: isolation, onSuccess: onSuccess, onError: { onError($0) })
    }

    func chain(
        _ request: some KonexRequest, _ plugins: [any KonexPlugin], _ processors: [any KonexResponseProcessor],
        _ validators: [any KonexResponseValidator]
    ) -> DataRequest {
        var chain = self.request(request).withPlugins(plugins)
        chain.processors = processors
        chain.validators = validators
        return chain
    }
}

#if compiler(>=6.2)
    extension KonexClient {
        /// Sends `request`, decodes one object on the caller's actor (its conformance may be isolated there) and
        /// delivers it there.
        @discardableResult
        public func requestObject<T: Decodable>(
            of type: T.Type, request: some KonexRequest, plugins: [any KonexPlugin] = [],
            responseProcessors: [any KonexResponseProcessor] = [],
            responseValidators: [any KonexResponseValidator] = [], isolation: isolated (any Actor)? = #isolation,
            onSuccess: @escaping (T) -> Void, onError: @escaping (any Error) -> Void
        ) -> RequestHandle {
            chain(request, plugins, responseProcessors, responseValidators)
                .responseObject(of: type, isolation: isolation, onSuccess: onSuccess, onError: { onError($0) })
        }

        /// Sends `request`, decodes an array on the caller's actor (its conformance may be isolated there) and
        /// delivers it there.
        @discardableResult
        public func requestArray<T: Decodable>(
            of type: T.Type, request: some KonexRequest, plugins: [any KonexPlugin] = [],
            responseProcessors: [any KonexResponseProcessor] = [],
            responseValidators: [any KonexResponseValidator] = [], isolation: isolated (any Actor)? = #isolation,
            onSuccess: @escaping ([T]) -> Void, onError: @escaping (any Error) -> Void
        ) -> RequestHandle {
            chain(request, plugins, responseProcessors, responseValidators)
                .responseArray(of: type, isolation: isolation, onSuccess: onSuccess, onError: { onError($0) })
        }
    }
#endif
