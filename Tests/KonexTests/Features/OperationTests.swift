import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A call's named operation reaches every component in its task, instruments and `explain()`, and KonexTesting
/// matches on it; it is gone once the call returns.
@Suite struct OperationTests {
    struct SeenBy: KonexPlugin, RequestInstrument {
        let seen = Lock<[String]>([])
        func didSendRequest(_ request: TransportRequest) async {
            seen.withLock { $0.append("plugin \(KonexOperation.current ?? "none")") }
        }
        func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? {
            seen.withLock { $0.append("instrument \(request.operationID ?? "none")") }
            return nil
        }
    }

    @Test func theOperationReachesPluginsInstrumentsExplainAndTheMock() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.operation("getPost"), .json(["id": 1]))
        mock.stub(.get("/posts/1"), .status(404))  // the same URL, unnamed
        let observer = SeenBy()
        let client = KonexClient.mocked(mock)
        client.plugins = [observer]
        client.instruments = [observer]
        let named = client.request("/posts/1").operation("getPost")
        #expect(named.explain().operationID == "getPost")
        #expect(named.explain().description.contains("operation getPost"))
        #expect(try await named.validate().responseJSON()["id"] == 1)
        #expect(try await client.request("/posts/1").response().statusCode == 404)
        #expect(observer.seen.value == ["instrument getPost", "plugin getPost", "instrument none", "plugin none"])
        #expect(KonexOperation.current == nil)
    }

    @Test func aMissNamesTheOperationItWanted() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.operation("getPost"), .json(["id": 1]))
        let error = try await requireThrows(KonexError.self) {
            try await KonexClient.mocked(mock).request("/posts/1").operation("listPosts").responseData()
        }
        #expect(String(describing: error).contains("operation getPost"))
    }
}
