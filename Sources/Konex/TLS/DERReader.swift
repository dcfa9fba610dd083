import Foundation

/// Just enough DER (X.690) to find a certificate's public key: Konex pins keys by the SHA-256 of their
/// `SubjectPublicKeyInfo`, and the core reads certificates without a package. Every length is checked against what is
/// left, so a peer's bytes can only fail to parse, never read past the end.
struct DERReader {
    /// One element: its tag, the range of its contents, and the range of the whole element (tag and length included).
    struct Element {
        let tag: UInt8
        let contents: Range<Int>
        let whole: Range<Int>
    }

    private let bytes: [UInt8]
    private var position: Int
    private let end: Int

    init(_ bytes: [UInt8]) {
        self.init(bytes, range: bytes.startIndex..<bytes.endIndex)
    }

    private init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { position >= end }

    /// Reads the next element, or `nil` when what is left is not one.
    mutating func next() -> Element? {
        let start = position
        guard end - position >= 2 else { return nil }
        let tag = bytes[position]
        // High-tag-number form (tag bits all set) never occurs in the certificate fields read here.
        guard tag & 0x1f != 0x1f else { return nil }
        var cursor = position + 1
        let first = bytes[cursor]
        cursor += 1
        let length: Int
        if first < 0x80 {
            length = Int(first)
        } else {
            // DER's long form: 1 to 4 length bytes here (a certificate over 4 GiB is not one). Read as a UInt64 and
            // compared with what is left before it becomes an Int: where Int is 32 bits (arm64_32, the Apple Watch)
            // a length of 2^31 or more would turn negative, pass the check below and trap in the range after it.
            let count = Int(first & 0x7f)
            guard (1...4).contains(count), end - cursor >= count else { return nil }
            var wide: UInt64 = 0
            for _ in 0..<count {
                wide = wide << 8 | UInt64(bytes[cursor])
                cursor += 1
            }
            guard wide <= UInt64(end - cursor) else { return nil }
            length = Int(wide)
        }
        guard length <= end - cursor else { return nil }
        position = cursor + length
        return Element(tag: tag, contents: cursor..<position, whole: start..<position)
    }

    /// A reader over an element's contents.
    func reading(_ element: Element) -> DERReader { DERReader(bytes, range: element.contents) }

    /// The bytes of `range`.
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> { bytes[range] }
}

extension DERReader {
    static let sequence: UInt8 = 0x30
    /// `[0] EXPLICIT Version` in a `TBSCertificate`.
    static let versionTag: UInt8 = 0xa0

    /// The whole `SubjectPublicKeyInfo` element of a DER X.509 certificate (RFC 5280 4.1), or `nil` when `der` is not
    /// one.
    static func subjectPublicKeyInfo(ofCertificate der: [UInt8]) -> ArraySlice<UInt8>? {
        var outer = DERReader(der)
        guard let certificate = outer.next(), certificate.tag == sequence, outer.isAtEnd else { return nil }
        var fields = outer.reading(certificate)
        guard let tbs = fields.next(), tbs.tag == sequence else { return nil }
        var tbsFields = fields.reading(tbs)
        guard var element = tbsFields.next() else { return nil }
        if element.tag == versionTag {
            guard let serial = tbsFields.next() else { return nil }
            element = serial
        }
        // serialNumber (read above), signature, issuer, validity, subject, then subjectPublicKeyInfo.
        for _ in 0..<4 {
            guard let skipped = tbsFields.next(), skipped.tag == sequence else { return nil }
            element = skipped
        }
        guard let info = tbsFields.next(), info.tag == sequence else { return nil }
        return tbsFields.slice(info.whole)
    }
}
