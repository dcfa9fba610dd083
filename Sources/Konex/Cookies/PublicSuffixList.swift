import Foundation

/// The public suffix list: which domains are open to registration by anyone (`com`, `co.uk`, `github.io`), so a
/// cookie set for one would reach every site under it.
///
/// A ``CookieJar`` refuses a `Domain` attribute that names a public suffix. Konex ships no copy of the list (it
/// changes weekly): ``system`` reads the one the operating system keeps up to date, Debian's `publicsuffix` package
/// on Linux; elsewhere, load one you ship with ``init(contentsOf:)``. A jar without a list fails closed: every
/// `Domain` attribute is treated as a public suffix, so cookies stay with the host that set them.
/// ```swift
/// let list = PublicSuffixList(rules: "com\nco.uk\n*.ck\n!www.ck")
/// list.registrableDomain(of: "www.example.co.uk")   // "example.co.uk"
/// list.isPublicSuffix("co.uk")                      // true
/// ```
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    /// The `X` of each `*.X` rule.
    private let wildcards: Set<String>
    /// The `X` of each `!X` rule.
    private let exceptions: Set<String>

    /// Where Debian's `publicsuffix` package keeps the list.
    public static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The system's list (``systemPath``), read once; `nil` where there is none (Apple platforms, a Linux without the
    /// `publicsuffix` package).
    public static let system: PublicSuffixList? = try? PublicSuffixList(contentsOf: URL(fileURLWithPath: systemPath))

    /// Reads a list in the format publicsuffix.org publishes (`public_suffix_list.dat`).
    /// - Parameter url: The file.
    /// - Throws: The file system's error when the file cannot be read.
    public init(contentsOf url: URL) throws {
        self.init(rules: try String(contentsOf: url, encoding: .utf8))
    }

    /// Reads rules, one a line, as the published list writes them: comments (`//`) and blank lines skipped, `*.`
    /// a wildcard label, `!` an exception; the ICANN and private sections alike.
    /// - Parameter text: The rules.
    public init(rules text: String) {
        var rules = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            // A rule ends at the first white space.
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            let folded = rule.lowercased()
            if folded.hasPrefix("!") {
                exceptions.insert(String(folded.dropFirst()))
            } else if folded.hasPrefix("*.") {
                wildcards.insert(String(folded.dropFirst(2)))
            } else {
                rules.insert(folded)
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// The domain someone registered for `host`: its public suffix and one label more, in `host`'s own form
    /// (punycode stays punycode), lower-cased; `nil` when `host` is itself a public suffix or not a domain name.
    /// - Parameter host: A domain name, in Unicode or punycode.
    public func registrableDomain(of host: String) -> String? {
        guard let (labels, suffixCount) = split(host), labels.count > suffixCount else { return nil }
        return labels.suffix(suffixCount + 1).joined(separator: ".")
    }

    /// Whether `domain` is a public suffix (by an explicit rule, or a single unlisted label by the implicit `*`).
    /// - Parameter domain: A domain name, in Unicode or punycode.
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard let (labels, suffixCount) = split(domain) else { return false }
        return labels.count == suffixCount
    }

    /// `host`'s labels lower-cased, and how many of the last ones are its public suffix; `nil` for no domain name.
    private func split(_ host: String) -> (labels: [String], suffixCount: Int)? {
        let labels = host.lowercased().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !labels.isEmpty, !labels.contains(where: \.isEmpty) else { return nil }
        // The list is in Unicode; a punycode label is matched as the Unicode it stands for.
        let matched = labels.map { label in
            label.hasPrefix("xn--") ? Punycode.decode(label.dropFirst(4)) ?? label : label
        }
        func suffix(from index: Int) -> String { matched[index...].joined(separator: ".") }
        // An exception wins over every other rule: its suffix is the exception less its first label.
        for index in matched.indices where exceptions.contains(suffix(from: index)) {
            return (labels, matched.count - index - 1)
        }
        // Otherwise the rule with the most labels: the first match from the longest suffix down.
        for index in matched.indices {
            if rules.contains(suffix(from: index)) { return (labels, matched.count - index) }
            if index + 1 < matched.count, wildcards.contains(suffix(from: index + 1)) {
                return (labels, matched.count - index)
            }
        }
        return (labels, 1)
    }
}
