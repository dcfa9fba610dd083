import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, each with its own headers.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "author")
/// form.append(png, name: "avatar", fileName: "ada.png", contentType: "image/png")
/// try form.append(fileAt: reportURL, name: "report", contentType: "application/pdf")
/// client.request(UploadRequest(form: form))   // body: .multipart(form)
/// ```
public struct MultipartFormData: Sendable {
    enum Content: Sendable {
        case data(Data)
        case file(URL)
    }

    struct Part: Sendable {
        let name: String
        let fileName: String?
        let contentType: String?
        let content: Content
    }

    /// The boundary between parts; random by default, and never found inside a part's bytes.
    public let boundary: String
    private(set) var parts: [Part] = []

    /// Creates an empty form.
    /// - Parameter boundary: A fixed boundary (for tests); random by default.
    public init(boundary: String = "konex-" + UUID().uuidString.lowercased()) { self.boundary = boundary }

    /// The `Content-Type` header value, with the boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Adds a text field. A bare CR or LF in the value is written CRLF, as browsers write a form (the HTML standard's
    /// `multipart/form-data` encoding).
    public mutating func append(_ value: String, name: String) {
        parts.append(
            Part(
                name: name, fileName: nil, contentType: nil, content: .data(Data(Self.crlfLineBreaks(value).utf8))))
    }

    /// Adds bytes, as a file when `fileName` is given.
    /// - Parameters:
    ///   - data: The bytes.
    ///   - name: The field name.
    ///   - fileName: The file name the server sees.
    ///   - contentType: The part's media type; `application/octet-stream` for files by default.
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, contentType: String? = nil) {
        parts.append(
            Part(
                name: name, fileName: fileName,
                contentType: contentType ?? (fileName == nil ? nil : "application/octet-stream"), content: .data(data)))
    }

    /// Adds a file from disk; it is read only when the body is encoded.
    /// - Parameters:
    ///   - url: A file URL.
    ///   - name: The field name.
    ///   - fileName: The file name the server sees; the URL's last component by default.
    ///   - contentType: The part's media type; `application/octet-stream` by default.
    /// - Throws: When `url` is not a readable regular file.
    public mutating func append(fileAt url: URL, name: String, fileName: String? = nil, contentType: String? = nil)
        throws
    {
        guard url.isFileURL, FileManager.default.isReadableFile(atPath: url.path) else {
            throw MultipartError("\(url.path) is not a readable file")
        }
        parts.append(
            Part(
                name: name, fileName: fileName ?? url.lastPathComponent,
                contentType: contentType ?? "application/octet-stream", content: .file(url)))
    }

    /// The encoded body.
    /// - Throws: When a file part cannot be read, or the boundary occurs inside a part.
    public func encode() throws -> Data {
        var body = Data()
        let delimiter = Data("--\(boundary)".utf8)
        for part in parts {
            let content: Data
            switch part.content {
            case .data(let data): content = data
            case .file(let url):
                do { content = try Data(contentsOf: url, options: .alwaysMapped) } catch {
                    throw MultipartError("cannot read \(url.path): \(error.localizedDescription)")
                }
            }
            if content.range(of: delimiter) != nil {
                throw MultipartError("the boundary \"\(boundary)\" occurs inside part \"\(part.name)\"")
            }
            body.append(delimiter)
            let name = Self.escape(Self.crlfLineBreaks(part.name))
            body.append(Data("\r\nContent-Disposition: form-data; name=\"\(name)\"".utf8))
            if let fileName = part.fileName { body.append(Data("; filename=\"\(Self.escape(fileName))\"".utf8)) }
            if let contentType = part.contentType { body.append(Data("\r\nContent-Type: \(contentType)".utf8)) }
            body.append(Data("\r\n\r\n".utf8))
            body.append(content)
            body.append(Data("\r\n".utf8))
        }
        body.append(delimiter)
        body.append(Data("--\r\n".utf8))
        return body
    }

    /// `text` with every CR not followed by LF, and every LF not preceded by CR, written CRLF: what the HTML
    /// standard's form-data encoding does to field names and text values (not to file names, nor to bytes).
    static func crlfLineBreaks(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return text }
        var result = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r":
                result.append(contentsOf: "\r\n".unicodeScalars)
                afterCR = true
                continue
            case "\n" where afterCR:
                break  // the LF of a CRLF, written with its CR
            default:
                if scalar == "\n" { result.append("\r") }
                result.append(scalar)
            }
            afterCR = false
        }
        return String(result)
    }

    /// The HTML standard (and RFC 7578 §2): quotes and line breaks in names and file names are percent-encoded, after
    /// a name's bare CR and LF became CRLF (``crlfLineBreaks(_:)``), so `a\nb` is written `a%0D%0Ab`.
    private static func escape(_ name: String) -> String {
        name.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

/// A multipart body could not be built.
public struct MultipartError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
