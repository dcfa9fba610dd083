import Foundation

/// Decodes an error body as the type a call named in `errorType:`, keeping the type's name for messages.
struct ErrorBodyDecoder: Sendable {
    let typeName: String
    let decode: @Sendable (Data, JSONDecoder) throws -> any Sendable

    init<E: Decodable & Sendable>(_ type: E.Type) {
        typeName = String(describing: type)
        decode = { data, decoder in try JSONTape.decode(type, from: data, with: decoder) }
    }

    /// What a failure's message gains when its body is not a `typeName`: the reason and the coding path.
    static func mismatch(_ typeName: String, _ error: any Error) -> String {
        let (path, reason) = (error as? DecodingError).map(DecodingErrorDescription.describe) ?? ([], "\(error)")
        let location = path.isEmpty ? "" : " at \(JSONKeyPath.render(path))"
        return "; the error body is not a \(typeName): \(reason)\(location)"
    }
}
