import Foundation

/// A JSON document read once into a flat list of nodes, for ``TapeDecoder``: what `JSONDecoder` builds per
/// request (a map, a dictionary per object, boxes per value), at a fraction of the cost.
///
/// The tape takes only JSON that `JSONDecoder` (swift-foundation's: Linux, and Apple platforms from 2023) reads one
/// way, and that any other reading would read the same. A document outside that subset is not an error here: the
/// tape is not made, and `JSONDecoder` reads the document and has the last word. Outside the subset:
/// - anything ``JSONScanner`` refuses (it is as strict as the strictest Foundation parser), or UTF-16 and UTF-32;
/// - a member name with an escape or a non-ASCII byte (matching it would need Unicode equivalence, and the
///   platforms disagree), or an object that repeats a name (the platforms disagree on which one wins);
/// - nesting deeper than ``JSONScanner/maximumDepth``.
final class JSONTape {
    /// One value of the document, in document order; a container's members or elements follow it.
    enum Node {
        /// `count` members, each a `.string` name node followed by its value; the object's last node is before `next`.
        case object(count: Int, next: Int)
        /// `count` elements; the array's last node is before `next`.
        case array(count: Int, next: Int)
        /// The bytes between the quotes, already checked; `escaped` when they hold a backslash.
        case string(Range<Int>, escaped: Bool)
        /// The number's text, already checked against JSON's grammar.
        case number(Range<Int>)
        case bool(Bool)
        case null
    }

    let nodes: [Node]
    /// The document's bytes: valid only while ``isOpen`` (the decode that made the tape).
    let bytes: UnsafeBufferPointer<UInt8>
    let userInfo: [CodingUserInfoKey: Any]
    /// The decoder whose date and data strategies apply (`nil`: the defaults).
    let settings: JSONDecoder?
    /// Read once, when the first `Date` or `Data` is met: each read of the decoder's settings takes its lock.
    lazy var dateStrategy = settings?.dateDecodingStrategy ?? .deferredToDate
    lazy var dataStrategy = settings?.dataDecodingStrategy ?? .base64
    /// Cleared when the decode that owns ``bytes`` returns, so a decoder kept past it refuses to read.
    var isOpen = true
    /// Set when the tape could not vouch for an answer (a type `JSONDecoder` treats specially, a number it might
    /// read otherwise) or when anything threw: the value made is then thrown away and `JSONDecoder` decides.
    var declined = false

    init(nodes: [Node], bytes: UnsafeBufferPointer<UInt8>, settings: JSONDecoder?) {
        self.nodes = nodes
        self.bytes = bytes
        self.settings = settings
        // `[CodingUserInfoKey: any Sendable]` in newer Foundations, `Any` in older ones: converted either way.
        if let settings { self.userInfo = settings.userInfo } else { self.userInfo = [:] }
    }

    /// The node after the value at `index` (its whole subtree).
    func next(after index: Int) -> Int { Self.nextNode(after: index, in: nodes) }

    /// Records that the answer cannot be vouched for and returns the error that unwinds the decode.
    func decline() -> any Error {
        declined = true
        return TapeDeclined.shared
    }
}

/// Thrown inside a tape decode when the tape leaves the answer to `JSONDecoder`. One shared instance: declining
/// allocates nothing.
final class TapeDeclined: Error, Sendable {
    static let shared = TapeDeclined()
}

extension JSONTape {
    /// The nodes of `bytes`, or `nil` when the document is outside the tape's subset (see ``JSONTape``).
    static func nodes(of bytes: UnsafeBufferPointer<UInt8>) -> [Node]? {
        var cursor = JSONScanner.Cursor(bytes: bytes)
        cursor.skipByteOrderMark()
        var nodes: [Node] = []
        nodes.reserveCapacity(16)
        // The open containers: the node's index, its count so far, and whether it is an object.
        var open: [(index: Int, count: Int, isObject: Bool)] = []
        do {
            while true {
                cursor.skipWhitespace()
                switch cursor.peek {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = cursor.peek == UInt8(ascii: "{")
                    guard open.count < JSONScanner.maximumDepth else { return nil }
                    cursor.position += 1
                    cursor.skipWhitespace()
                    if cursor.peek == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        cursor.position += 1
                        nodes.append(
                            isObject
                                ? .object(count: 0, next: nodes.count + 1) : .array(count: 0, next: nodes.count + 1))
                        break
                    }
                    open.append((nodes.count, 0, isObject))
                    nodes.append(.null)  // replaced when the container closes
                    if isObject { guard try memberName(&cursor, into: &nodes) else { return nil } }
                    continue
                case UInt8(ascii: "\""):
                    let string = try cursor.skipString()
                    nodes.append(.string(string.range, escaped: string.escaped))
                case UInt8(ascii: "t"):
                    try cursor.skipLiteral("true")
                    nodes.append(.bool(true))
                case UInt8(ascii: "f"):
                    try cursor.skipLiteral("false")
                    nodes.append(.bool(false))
                case UInt8(ascii: "n"):
                    try cursor.skipLiteral("null")
                    nodes.append(.null)
                case UInt8(ascii: "-"), .some(UInt8(ascii: "0")...UInt8(ascii: "9")):
                    let start = cursor.position
                    try cursor.skipNumber()
                    nodes.append(.number(start..<cursor.position))
                default:
                    return nil
                }
                // A value ended: count it, close the containers it completes, move to the next member or element.
                while !open.isEmpty {
                    open[open.count - 1].count += 1
                    let top = open[open.count - 1]
                    cursor.skipWhitespace()
                    if cursor.peek == UInt8(ascii: ",") {
                        cursor.position += 1
                        if top.isObject { guard try memberName(&cursor, into: &nodes) else { return nil } }
                        break
                    }
                    guard cursor.peek == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
                    cursor.position += 1
                    open.removeLast()
                    if top.isObject {
                        nodes[top.index] = .object(count: top.count, next: nodes.count)
                        guard !repeatsAName(objectAt: top.index, in: nodes, bytes: bytes) else { return nil }
                    } else {
                        nodes[top.index] = .array(count: top.count, next: nodes.count)
                    }
                    // The closed container is itself a value of the one around it, counted on the next pass.
                    continue
                }
                if open.isEmpty { break }
            }
        } catch {
            return nil
        }
        cursor.skipWhitespace()
        return cursor.isAtEnd ? nodes : nil
    }

    /// Reads `"name":`, appending the name's node; `false` when the name is outside the subset.
    private static func memberName(_ cursor: inout JSONScanner.Cursor, into nodes: inout [Node]) throws -> Bool {
        let name = try cursor.skipMemberName()
        guard !name.escaped else { return false }
        for index in name.range where cursor.bytes[index] >= 0x80 { return false }
        nodes.append(.string(name.range, escaped: false))
        return true
    }

    /// Whether the object at `index` (closed, its names plain ASCII) has two members of the same name.
    private static func repeatsAName(objectAt index: Int, in nodes: [Node], bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard case .object(let count, let end) = nodes[index], count > 1 else { return false }
        if count <= 16 {
            // Each name against the ones after it, read where they lie: no array of names to allocate (a third of
            // this check's cost on a three-member object).
            var member = index + 1
            while member < end {
                guard case .string(let name, _) = nodes[member] else { return true }
                var other = nextNode(after: member + 1, in: nodes)
                while other < end {
                    guard case .string(let otherName, _) = nodes[other] else { return true }
                    if sameBytes(name, otherName, in: bytes) { return true }
                    other = nextNode(after: other + 1, in: nodes)
                }
                member = nextNode(after: member + 1, in: nodes)
            }
            return false
        }
        var names: [Range<Int>] = []
        names.reserveCapacity(count)
        var member = index + 1
        while member < end {
            guard case .string(let name, _) = nodes[member] else { return true }
            names.append(name)
            member = nextNode(after: member + 1, in: nodes)
        }
        // Larger objects: an open-addressing table of the names' indices by an FNV-1a hash of their bytes, equal
        // bytes compared on a shared hash (SipHash and a `Set` cost twice as much, 10 % of a whole decode).
        var size = 32
        while size < count * 2 { size <<= 1 }
        var table = [Int32](repeating: -1, count: size)
        return table.withUnsafeMutableBufferPointer { table in
            for (offset, name) in names.enumerated() {
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for index in name { hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01b3 }
                var slot = Int(truncatingIfNeeded: hash ^ hash >> 29) & (size - 1)
                while table[slot] >= 0 {
                    if sameBytes(name, names[Int(table[slot])], in: bytes) { return true }
                    slot = (slot + 1) & (size - 1)
                }
                table[slot] = Int32(truncatingIfNeeded: offset)
            }
            return false
        }
    }

    /// Whether the bytes at `first` and at `second` are the same.
    @inline(__always) private static func sameBytes(
        _ first: Range<Int>, _ second: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        first.count == second.count
            && memcmp(bytes.baseAddress! + first.lowerBound, bytes.baseAddress! + second.lowerBound, first.count) == 0
    }

    static func nextNode(after index: Int, in nodes: [Node]) -> Int {
        switch nodes[index] {
        case .object(_, let next), .array(_, let next): next
        default: index + 1
        }
    }
}
