/// The components of one kind, client level first, then request, then call site, iterated without concatenating
/// (a request pays no allocation to walk three short lists).
struct Layers<Element>: Sequence {
    let client: [Element]
    let request: [Element]
    let callSite: [Element]

    init(_ client: [Element], _ request: [Element]?, _ callSite: [Element]) {
        self.client = client
        self.request = request ?? []
        self.callSite = callSite
    }

    var isEmpty: Bool { client.isEmpty && request.isEmpty && callSite.isEmpty }

    struct Iterator: IteratorProtocol {
        var layers: Layers
        var level = 0
        var index = 0

        mutating func next() -> Element? {
            while level < 3 {
                let list = level == 0 ? layers.client : level == 1 ? layers.request : layers.callSite
                if index < list.count {
                    defer { index += 1 }
                    return list[index]
                }
                level += 1
                index = 0
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(layers: self) }
}

/// A request value's own components (its ``KonexRequest`` lists), read in one pass: the middle level of each
/// ``Layers``. One pass, because each `endpoint?.requestAdapters` and the like copied the whole optional existential
/// (six outlined copies, about 690 instructions a request).
struct RequestLevel {
    var adapters: [any RequestAdapter] = []
    var plugins: [any KonexPlugin] = []
    var validators: [any KonexResponseValidator] = []
    var processors: [any KonexResponseProcessor] = []
    var retriers: [any RequestRetrier] = []
    var interceptors: [any TransportInterceptor] = []

    /// No request value: a call by path or `URLRequest` adds nothing between the client and the call site.
    init() {}

    /// The lists `endpoint` declares.
    init(_ endpoint: any KonexRequest) {
        adapters = endpoint.requestAdapters
        plugins = endpoint.requestPlugins
        validators = endpoint.requestResponseValidators
        processors = endpoint.requestResponseProcessors
        retriers = endpoint.requestRetriers
        interceptors = endpoint.requestInterceptors
    }
}
