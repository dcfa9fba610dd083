import Foundation

/// One `-----BEGIN LABEL----- … -----END LABEL-----` block of a PEM text (RFC 7468).
struct PEMBlock {
    let label: String
    /// The block's base64 body, line breaks removed.
    let base64: String

    /// The body's bytes; `nil` when it is not base64.
    var der: Data? { Data(base64Encoded: base64) }

    /// Every block in `text`, in order; text between blocks is ignored, as RFC 7468 allows.
    static func all(in text: String) -> [PEMBlock] {
        var blocks: [PEMBlock] = []
        var label: String?
        var body = ""
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let open = label {
                if line == "-----END \(open)-----" {
                    blocks.append(PEMBlock(label: open, base64: body))
                    label = nil
                    body = ""
                } else {
                    body += line
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                label = String(line.dropFirst(11).dropLast(5))
            }
        }
        return blocks
    }

    /// `der` as a PEM block with 64-character lines.
    static func text(label: String, der: Data) -> String {
        let encoded = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(encoded)\n-----END \(label)-----\n"
    }
}
