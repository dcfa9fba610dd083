import Foundation

// The body formats Redaction knows besides JSON: form bodies and multipart parts, by field name.
extension Redaction {
    /// A form body (or any `name=value&…` text) with listed fields' values replaced.
    func form(_ text: String) -> String {
        var ignored: Set<String> = []
        return form(text, redactedKeys: &ignored)
    }

    /// A form body with listed fields' values replaced; names are compared after percent-decoding, and every other
    /// byte is kept.
    func form(_ text: String, redactedKeys: inout Set<String>) -> String {
        guard text.contains("=") else { return text }
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "=") else { return pair }
            let rawName = pair[..<equals]
            // A URL's query before the form: only the part after the last "?" names the field.
            let name = rawName.split(separator: "?").last.map(String.init) ?? String(rawName)
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
            guard isListedField(decoded) else { return pair }
            changed = true
            redactedKeys.insert("form \(decoded)")
            return rawName + "=" + Self.placeholder
        }
        return changed ? pairs.joined(separator: "&") : text
    }

    /// A `multipart/form-data` body with the content of each listed part replaced (headers and boundaries kept);
    /// a body whose boundary cannot be found is returned as it is.
    func multipart(_ data: Data, contentType: String, redactedKeys: inout Set<String>) -> Data {
        guard let boundary = Self.boundary(of: contentType) else { return data }
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var output = Data()
        var cursor = data.startIndex
        var changed = false
        while let found = data.range(of: delimiter, in: cursor..<data.endIndex) {
            // `found` opens the next part; what lies between `cursor` and it is the previous part (or the preamble).
            output.append(data[cursor..<found.upperBound])
            cursor = found.upperBound
            guard let headersEnd = data.range(of: headerEnd, in: cursor..<data.endIndex) else { break }
            let headers = String(decoding: data[cursor..<headersEnd.lowerBound], as: UTF8.self)
            let contentStart = headersEnd.upperBound
            let next = data.range(of: Data("\r\n".utf8) + delimiter, in: contentStart..<data.endIndex)
            let contentEnd = next?.lowerBound ?? data.endIndex
            output.append(data[cursor..<contentStart])
            if let name = Self.partName(headers), isListedField(name) {
                output.append(Data(Self.placeholder.utf8))
                redactedKeys.insert("multipart \(name)")
                changed = true
            } else {
                output.append(data[contentStart..<contentEnd])
            }
            cursor = contentEnd
        }
        guard changed else { return data }
        output.append(data[cursor..<data.endIndex])
        return output
    }

    /// The `boundary` parameter of a multipart media type.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The `name` of a part's `Content-Disposition: form-data; name="…"`.
    static func partName(_ headers: String) -> String? {
        for line in headers.split(whereSeparator: \.isNewline)
        where line.lowercased().hasPrefix("content-disposition:") {
            for parameter in line.split(separator: ";").dropFirst() {
                let parts = parameter.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "name" else {
                    continue
                }
                return parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// `data` with every occurrence of `needle` replaced by the placeholder.
    static func replacing(_ needle: Data, in data: Data) -> Data {
        guard !needle.isEmpty, data.range(of: needle) != nil else { return data }
        var output = Data()
        var cursor = data.startIndex
        while let found = data.range(of: needle, in: cursor..<data.endIndex) {
            output.append(data[cursor..<found.lowerBound])
            output.append(Data(placeholder.utf8))
            cursor = found.upperBound
        }
        output.append(data[cursor..<data.endIndex])
        return output
    }
}

/// Replaces the values of listed keys in JSON text by reading tokens, not by parsing: it works on JSON cut short, on
/// JSON Lines and on JSON inside other text, and keeps every byte it does not replace.
struct JSONRedactor {
    let bytes: [UInt8]
    let isListed: (String) -> Bool
    /// How many levels of JSON written inside a JSON string (`"payload": "{\"token\":…}"`) are read too.
    var nestedLevels = 1

    func redact(into keys: inout Set<String>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        let placeholder = Array("\"\(Redaction.placeholder)\"".utf8)
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let end = stringEnd(from: index)
            // A string followed by ":" is a key.
            var after = skipSpace(from: end)
            guard after < bytes.count, bytes[after] == UInt8(ascii: ":") else {
                output.append(contentsOf: nested(bytes[index..<end], keys: &keys) ?? Array(bytes[index..<end]))
                index = end
                continue
            }
            output.append(contentsOf: bytes[index..<end])
            let key = Self.unescaped(bytes[(index + 1)..<Swift.max(index + 1, end - 1)])
            guard isListed(key) else {
                index = end
                continue
            }
            after = skipSpace(from: after + 1)
            output.append(contentsOf: bytes[end..<after])
            keys.insert(key)
            output.append(contentsOf: placeholder)
            index = valueEnd(from: after)
        }
        return output
    }

    /// A string value that holds JSON itself, redacted and quoted again; `nil` when it holds none or nothing listed.
    private func nested(_ quoted: ArraySlice<UInt8>, keys: inout Set<String>) -> [UInt8]? {
        guard nestedLevels > 0, quoted.count > 4, quoted.last == UInt8(ascii: "\""),
            quoted.contains(UInt8(ascii: "\\"))
        else { return nil }
        let text = Self.unescaped(quoted.dropFirst().dropLast())
        guard let first = text.first(where: { !$0.isWhitespace }), first == "{" || first == "[" else { return nil }
        var found: Set<String> = []
        let inner = JSONRedactor(bytes: Array(text.utf8), isListed: isListed, nestedLevels: nestedLevels - 1)
            .redact(into: &found)
        guard !found.isEmpty, let encoded = try? JSONEncoder().encode(String(decoding: inner, as: UTF8.self)) else {
            return nil
        }
        keys.formUnion(found)
        return Array(encoded)
    }

    /// The index after the string that opens at `start` (its closing quote), or the end of the text.
    private func stringEnd(from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    private func skipSpace(from start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    /// The index after the value that starts at `start`: a string, a balanced object or array (or the end of a cut
    /// text), or a scalar up to the next delimiter.
    private func valueEnd(from start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = stringEnd(from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return bytes.count
        default:
            var index = start
            while index < bytes.count,
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(
                    bytes[index])
            {
                index += 1
            }
            return index
        }
    }

    /// A key's text with JSON escapes resolved (`\"`, `\\`, `\u0070` …), so an escaped key is still recognised.
    static func unescaped(_ raw: ArraySlice<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        let quoted = [UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]
        return (try? JSONDecoder().decode(String.self, from: Data(quoted))) ?? String(decoding: raw, as: UTF8.self)
    }
}
