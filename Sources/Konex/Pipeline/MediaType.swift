/// Media-type matching for `Content-Type` checks: case-insensitive, parameters ignored, wildcards allowed.
enum MediaType {
    /// Whether `header` (e.g. `application/json; charset=utf-8`) matches one of `patterns`.
    static func matches(_ header: String, anyOf patterns: [String]) -> Bool {
        guard let (type, subtype) = split(header) else { return false }
        return patterns.contains { pattern in
            guard let (wantedType, wantedSubtype) = split(pattern) else { return false }
            return (wantedType == "*" || wantedType == type) && (wantedSubtype == "*" || wantedSubtype == subtype)
        }
    }

    /// `type/subtype` in lower case without parameters, or `nil` when it is not of that shape.
    static func split(_ value: String) -> (Substring, Substring)? {
        let essence = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let type = Substring(parts[0].trimmingWhitespace().lowercased())
        let subtype = Substring(parts[1].trimmingWhitespace().lowercased())
        guard !type.isEmpty, !subtype.isEmpty else { return nil }
        return (type, subtype)
    }

    /// The `charset` parameter of a `Content-Type`, lower-cased, if any.
    static func charset(of header: String) -> String? {
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "charset" {
                return pair[1].trimmingWhitespace().trimmingCharacters(in: ["\""]).lowercased()
            }
        }
        return nil
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(self).trimmingCharacters(in: .whitespaces)
    }
}
