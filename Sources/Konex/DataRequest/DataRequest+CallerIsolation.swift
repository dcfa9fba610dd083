import Foundation

// How the terminals for models whose `Decodable` conformance belongs to the caller's actor work (the forms themselves
// are in DataRequest+ResponseObject.swift and DataRequest+ResponseArray.swift, beside the `Sendable` ones).
//
// In a target that is main-actor isolated by default (Xcode 26's app template: `defaultIsolation(MainActor.self)` with
// `InferIsolatedConformances`), `struct Post: Codable` conforms on the main actor, and Swift refuses it wherever a
// conformance may be used off that actor, such as the `Decodable & Sendable` parameters of the usual terminals. Those
// forms take any `Decodable`: the pipeline still runs off the caller's actor (the request, the transport, the
// validators), and only the last step, decoding, runs where the call was made. Overload resolution picks them by
// itself: a `Sendable` model whose conformance is nonisolated keeps the usual form and is decoded off the actor.
#if compiler(>=6.2)
    extension DataRequest {
        /// Runs the pipeline (off the caller's actor, as every terminal does); a validation failure gets its body
        /// checked against `errorType` here, where the type's conformance may be used.
        nonisolated(nonsending) func executeDecodingErrorsHere(as errorType: (any Decodable.Type)?) async throws
            -> ReceivedResponse
        {
            do {
                return try await execute()
            } catch var failure as KonexError {
                guard let errorType, failure.stage == .validation, let data = failure.data, !data.isEmpty else {
                    throw failure
                }
                do {
                    // Kept as text: the value's conformance, and so perhaps the value, belongs to this actor, and
                    // the error may travel. `errorBody(as:)` decodes it again where it is read.
                    failure.errorBodyText = String(
                        describing: try JSONTape.decode(errorType, from: data, with: client.decoder))
                } catch {
                    failure.message += ErrorBodyDecoder.mismatch(String(describing: errorType), error)
                }
                throw failure
            }
        }
    }
#endif
