import Foundation

/// Decodes an error body as the type a call named in `errorType:`, keeping the type's name for messages.
struct ErrorBodyDecoder: Sendable {
    let typeName: String
    let decode: @Sendable (Data, JSONDecoder) throws -> any Sendable

    init<E: Decodable & Sendable>(_ type: E.Type) {
        typeName = String(describing: type)
        decode = { data, decoder in try JSONTape.decode(type, from: data, with: decoder) }
    }
}
