import Foundation
import Konex
import KonexTesting
import TestSupport

/// The public JSON benchmark documents (`../shared/json-datasets/`) decoded whole: through the public chain (a
/// `MockTransport` answering the document, `responseObject(of:)`) against `JSONDecoder` on the same bytes. Every
/// decode is first checked equal to `JSONDecoder`'s.
struct DatasetDecode: Sendable {
    let dataset: JSONDataset
    let document: Data
    let client: KonexClient

    /// The dataset's document and a client answering it; `nil` when `../shared/json-datasets` is not beside the
    /// checkout.
    init?(_ dataset: JSONDataset) throws {
        guard let document = try dataset.document() else { return nil }
        self.dataset = dataset
        self.document = document
        let mock = MockTransport(clock: ImmediateClock(), journalLimit: 0)
        mock.stub(.get("/\(dataset.rawValue)"), .data(document, contentType: "application/json"))
        client = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: mock, clock: ImmediateClock())
    }

    /// One decode through Konex's chain, and one by `JSONDecoder`, after checking they agree.
    func operations() async throws -> (konex: @Sendable () async throws -> Void, decoder: @Sendable () throws -> Void) {
        try await Self.operations(dataset.model, client: client, path: "/\(dataset.rawValue)", document: document)
    }

    private static func operations<Model: Decodable & Equatable & Sendable>(
        _ type: Model.Type, client: KonexClient, path: String, document: Data
    ) async throws -> (konex: @Sendable () async throws -> Void, decoder: @Sendable () throws -> Void) {
        let konex: @Sendable () async throws -> Model = {
            try await client.request(path).validate().responseObject(of: Model.self)
        }
        let decoder: @Sendable () throws -> Model = { try JSONDecoder().decode(Model.self, from: document) }
        guard try await konex() == (try decoder()) else { throw ServerError("\(path): Konex and JSONDecoder differ") }
        return ({ _ = try await konex() }, { _ = try decoder() })
    }
}

extension Benchmarks {
    /// `json_<dataset>`: milliseconds a document, Konex's chain against `JSONDecoder` alone, interleaved rounds.
    func datasets() async throws -> [Result] {
        var results: [Result] = []
        for dataset in JSONDataset.allCases {
            guard let decode = try DatasetDecode(dataset) else {
                throw ServerError("../shared/json-datasets is not beside the checkout")
            }
            let (konex, decoder) = try await decode.operations()
            let count = config.datasetDecodes
            let konexRun = { try await measure { for _ in 0..<count { try await konex() } } }
            let decoderRun = { try await measure { for _ in 0..<count { try decoder() } } }
            let (a, b) = try await interleaved(rounds: config.rounds, konexRun, decoderRun)
            results.append(
                Result.compared(
                    id: "json_\(dataset.rawValue)", a, b, per: count, scale: 1e3, unit: "ms/document",
                    detail: "\(decode.document.count) bytes through responseObject vs JSONDecoder alone"))
        }
        return results
    }
}

/// A dataset decode counted in instructions (`konex-bench --count json_twitter N`, or `json_twitter_decoder` for
/// `JSONDecoder` alone): one warm-up decode, then `count`, in one task.
struct CountedDataset: Sendable {
    let dataset: JSONDataset
    let byDecoder: Bool

    init?(rawValue: String) {
        guard rawValue.hasPrefix("json_") else { return nil }
        var name = rawValue.dropFirst("json_".count)
        byDecoder = name.hasSuffix("_decoder")
        if byDecoder { name = name.dropLast("_decoder".count) }
        guard let dataset = JSONDataset(rawValue: String(name)) else { return nil }
        self.dataset = dataset
    }

    static var names: [String] {
        JSONDataset.allCases.flatMap { ["json_\($0.rawValue)", "json_\($0.rawValue)_decoder"] }
    }

    func run(count: Int) async throws {
        guard let decode = try DatasetDecode(dataset) else {
            throw ServerError("../shared/json-datasets is not beside the checkout")
        }
        let (konex, decoder) = try await decode.operations()
        for _ in 0...count {
            if byDecoder { try decoder() } else { try await konex() }
        }
    }
}
