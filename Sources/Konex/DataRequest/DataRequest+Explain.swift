import Foundation

extension DataRequest {
    /// The pipeline this request will run, in order, each component with the level it came from: the answer to "why
    /// did my plugin not run" without a debugger.
    ///
    /// Nothing is sent. The transport and clock are the ones a request started here would use (a
    /// ``KonexClient/withTransport(_:clock:isolation:operation:)`` scope included).
    /// ```swift
    /// let plan = client.request(GetPosts()).withPlugin(Timing()).validate().explain()
    /// print(plan)                                   // one line per step
    /// #expect(plan.plugins.map(\.name) == ["LoggingPlugin", "Timing"])
    /// ```
    /// - Parameter terminal: The kind of terminal to explain; `response…` by default.
    /// - Returns: The explanation; its `description` is safe to log (type names, a redacted URL).
    public func explain(_ terminal: PipelineExplanation.Terminal = .response) -> PipelineExplanation {
        let shared = client.componentSnapshot
        let endpoint = self.endpoint
        func components<T>(_ client: [T], _ request: [T]?, _ callSite: [T]) -> [PipelineExplanation.Component] {
            client.map { .init(name: Self.typeName($0), level: .client) }
                + (request ?? []).map { .init(name: Self.typeName($0), level: .request) }
                + callSite.map { .init(name: Self.typeName($0), level: .callSite) }
        }
        let built = Result { try makeRequest() }
        let (transport, _) = client.activeRoute
        var notes: [String] = []

        let interceptors = components(shared.interceptors, endpoint?.requestInterceptors, self.interceptors)
        var processors = components(shared.processors, endpoint?.requestResponseProcessors, self.processors)
        if terminal != .response {
            let name = terminal == .stream ? "stream()" : "download(to:)"
            if !interceptors.isEmpty {
                notes.append(
                    "\(name) passes the interceptors with its body \(terminal == .stream ? "still arriving" : "in a file"): "
                        + "caches and coalescers let it by, a concurrency limit holds its slot until the body ends")
            }
            if processors.contains(where: { $0.level != .client }) && terminal == .stream {
                notes.append("stream() refuses this request: request and call-site processors need the whole body")
            } else if !processors.isEmpty {
                notes.append("\(name) does not run processors: \(processors.count) skipped")
            }
            processors = []
        }
        let validators = components(shared.validators, endpoint?.requestResponseValidators, self.validators)
        if validators.isEmpty { notes.append("no validator: every status code is a success (add .validate())") }
        if case .failure(let error) = built {
            notes.append("the request cannot be built: \((error as? KonexError)?.message ?? "\(error)")")
        }

        let timeout: (Duration, PipelineExplanation.Level)? =
            if let timeout = self.timeout { (timeout, .callSite) } else if let timeout = endpoint?.timeout {
                (timeout, .request)
            } else if let timeout = client.timeout { (timeout, .client) } else { nil }

        if let total = totalTimeout ?? client.totalTimeout {
            notes.append(
                "each attempt ends after \(total) (total timeout, \(totalTimeout != nil ? "call site" : "client"))")
        }
        let method = (try? built.get())?.method ?? endpoint?.method ?? .get
        return PipelineExplanation(
            terminal: terminal, method: method,
            url: (try? built.get()).map { client.redaction.url($0.url.absoluteString) },
            endpoint: endpoint.map(Self.typeName), operationID: operationID,
            adapters: components(shared.adapters, endpoint?.requestAdapters, self.adapters),
            plugins: components(shared.plugins, endpoint?.requestPlugins, self.plugins),
            interceptors: interceptors, transport: Self.typeName(transport),
            transportIsScoped: TransportScope.current != nil,
            validators: validators,
            retriers: components(shared.retriers, endpoint?.requestRetriers, self.retriers),
            processors: processors, instruments: shared.instruments.map(Self.typeName),
            clock: Self.typeName(client.activeClock), timeout: timeout, notes: notes)
    }

    /// A value's type name without its module: what an explanation shows instead of the value.
    private static func typeName(_ value: Any) -> String { String(describing: type(of: value)) }
}
