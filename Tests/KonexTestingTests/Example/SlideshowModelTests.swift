import Foundation
import Konex
import KonexTesting
import Testing

/// The view model tested with no rewiring, against `Fixtures/httpbin/session.har`, recorded from a real httpbin by
/// `RecordingTransport` (its Authorization header and the echo of it redacted).
@Suite struct SlideshowModelTests {
    @Test @MainActor func loadsTheSlideshowFromARecordedHAR() async throws {
        let fixtures = try FixtureTransport(
            directory: FixtureDirectory(besides: #filePath, named: "../Fixtures/httpbin"), clock: ImmediateClock())
        let model = SlideshowModel()
        await KonexClient.withTransport(fixtures) { await model.load() }
        #expect(model.failure == nil)
        #expect(model.title == "Sample Slide Show by Yours Truly")
        #expect(model.slideTitles == ["Wake up to WonderWidgets!", "Overview"])
    }
}

#if compiler(>=6.1)
    /// The same, one trait line.
    @Suite(.fixtures("../../Fixtures/httpbin"))
    @MainActor struct SlideshowModelTraitTests {
        @Test func loadsTheSlideshow() async throws {
            let model = SlideshowModel()
            await model.load()
            #expect(model.title == "Sample Slide Show by Yours Truly")
        }
    }
#endif
