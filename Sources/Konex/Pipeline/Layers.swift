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
