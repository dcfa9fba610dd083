import Foundation
import Testing

@testable import Konex

@Suite struct StatusCodeValidatorTests {
    private func response(_ status: Int) -> ResponseHead {
        ResponseHead(statusCode: status, url: URL(string: "https://api.test/x")!)
    }

    private func message(_ validator: StatusCodeValidator, _ status: Int) -> String? {
        do {
            try validator.validate(response(status), data: Data())
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test(arguments: [(199, false), (200, true), (204, true), (299, true), (300, false), (500, false)])
    func rangeAcceptsItsCodesOnly(status: Int, accepted: Bool) {
        let failure = message(StatusCodeValidator(200..<300), status)
        #expect((failure == nil) == accepted)
        if let failure { #expect(failure == "unacceptable status code \(status) (expected 200..<300)") }
    }

    @Test func setAcceptsItsCodesOnlyAndListsThemSortedOnFailure() {
        let validator = StatusCodeValidator([304, 201, 200])
        #expect(message(validator, 201) == nil)
        #expect(message(validator, 304) == nil)
        #expect(message(validator, 202) == "unacceptable status code 202 (expected 200, 201, 304)")
    }

    @Test func anEmptySetAcceptsNothing() {
        #expect(
            message(StatusCodeValidator(Set<Int>()), 200)
                == "unacceptable status code 200 (expected no status code at all)")
    }
}
