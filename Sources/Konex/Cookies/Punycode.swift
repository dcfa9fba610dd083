/// Punycode (RFC 3492) decoding, for matching an internationalised domain's `xn--` labels against the public suffix
/// list, which writes them in Unicode.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700

    /// The Unicode a label's punycode (after `xn--`) stands for, lower-cased; `nil` when it is not punycode.
    static func decode(_ encoded: Substring) -> String? {
        let input = Array(encoded.unicodeScalars)
        var output: [UnicodeScalar] = []
        var position = 0
        if let delimiter = input.lastIndex(of: "-") {
            guard input[..<delimiter].allSatisfy(\.isASCII) else { return nil }
            output = Array(input[..<delimiter])
            position = delimiter + 1
        }
        var code = 128
        var index = 0
        var bias = 72
        while position < input.count {
            let previous = index
            var weight = 1
            var k = base
            while true {
                guard position < input.count, let digit = digit(input[position]) else { return nil }
                position += 1
                let (product, overflowed) = digit.multipliedReportingOverflow(by: weight)
                guard !overflowed, index <= Int(Int32.max) - product else { return nil }
                index += product
                let threshold = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < threshold { break }
                let (next, tooBig) = weight.multipliedReportingOverflow(by: base - threshold)
                guard !tooBig, next <= Int(Int32.max) else { return nil }
                weight = next
                k += base
            }
            let count = output.count + 1
            bias = adapt(index - previous, count: count, first: previous == 0)
            code += index / count
            index %= count
            guard code <= 0x10FFFF, let scalar = UnicodeScalar(UInt32(code)) else { return nil }
            output.insert(scalar, at: index)
            index += 1
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: output)
        return String(text).lowercased()
    }

    private static func digit(_ scalar: UnicodeScalar) -> Int? {
        switch scalar.value {
        case 0x30...0x39: Int(scalar.value) - 0x30 + 26
        case 0x41...0x5A: Int(scalar.value) - 0x41
        case 0x61...0x7A: Int(scalar.value) - 0x61
        default: nil
        }
    }

    private static func adapt(_ delta: Int, count: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
