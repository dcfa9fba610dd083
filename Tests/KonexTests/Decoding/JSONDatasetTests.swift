import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// The public JSON benchmark documents (`../shared/json-datasets/`): each decodes on the tape itself (no fallback to
/// `JSONDecoder` halfway), and to the same values as `JSONDecoder`'s, also through a client's `responseObject`.
@Suite struct JSONDatasetTests {
    @Test(arguments: JSONDataset.allCases)
    func theTapeDecodesTheDocumentWholeToJSONDecodersValues(dataset: JSONDataset) throws {
        let document = try #require(try dataset.document(), "../shared/json-datasets is missing beside the checkout")
        try Self.compare(dataset.model, document: document)
    }

    @Test(arguments: JSONDataset.allCases)
    func aClientsResponseObjectGivesJSONDecodersValues(dataset: JSONDataset) async throws {
        let document = try #require(try dataset.document(), "../shared/json-datasets is missing beside the checkout")
        let mock = MockTransport()
        mock.stub(.get("/\(dataset.rawValue)"), .data(document, contentType: "application/json"))
        let client = KonexClient.mocked(mock)
        try await Self.compareThroughClient(
            dataset.model, client: client, path: "/\(dataset.rawValue)", document: document)
    }

    private static func compare<Model: Decodable & Equatable>(_ type: Model.Type, document: Data) throws {
        let expected = try JSONDecoder().decode(Model.self, from: document)
        // Straight on the tape: a decline here would mean the client's fast path is not taken for this document.
        let decoded = try document.withUnsafeBytes { raw in
            try JSONTape.decodeOnTape(Model.self, from: raw.bindMemory(to: UInt8.self), settings: JSONDecoder())
        }
        #expect(decoded == expected)
    }

    private static func compareThroughClient<Model: Decodable & Equatable & Sendable>(
        _ type: Model.Type, client: KonexClient, path: String, document: Data
    ) async throws {
        let decoded = try await client.request(path).validate().responseObject(of: Model.self)
        #expect(decoded == (try JSONDecoder().decode(Model.self, from: document)))
    }
}
