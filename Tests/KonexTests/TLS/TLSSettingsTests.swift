import Foundation
import KonexTesting
import Testing

@testable import Konex

@Suite struct TLSSettingsTests {
    // Certificates made with openssl; their pins printed by `openssl x509 -pubkey -noout | openssl pkey -pubin
    // -outform der | openssl dgst -sha256 -binary | base64`.
    static let ecCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBljCCAT2gAwIBAgIUWwAbdXcbVvSWEbsmLNbkEKYsFTkwCgYIKoZIzj0EAwIw
        GDEWMBQGA1UEAwwNS29uZXggVGVzdCBDQTAeFw0yNjExMjcxODE1NDlaFw0yNjEx
        MjkxODE1NDlaMBQxEjAQBgNVBAMMCWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqG
        SM49AwEHA0IABKpN8Oan84vYlzWv7xVjoDEvP0zFxkBHux12AcjOVBO3LXMKxiI7
        024HfNDfMVCvhIZEOazUPugCKil3/M5tG5ajaTBnMBoGA1UdEQQTMBGCCWxvY2Fs
        aG9zdIcEfwAAATAJBgNVHRMEAjAAMB0GA1UdDgQWBBT/j3mgC70wqh5i6rZCVns8
        RPHKsjAfBgNVHSMEGDAWgBShz1XNJEKkBwybXo5L5QoPUhO/JTAKBggqhkjOPQQD
        AgNHADBEAiBflUfTej/gBUzVqvexxRmMXGMpf8dbNikG1Kjql9GIXwIgTdwxTkU1
        K3MvvFu5tamX83bJH6cs/Cc/BiNgNikawZw=
        -----END CERTIFICATE-----
        """
    static let ecPin = "QCQZIfkZBQHE86YgwgsA6uK8NJ9qapEqys7kGpXPiIU="
    static let rsaCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIDDzCCAfegAwIBAgIUA977RsxwnDDxmrCjY7FCv58l8R4wDQYJKoZIhvcNAQEL
        BQAwFjEUMBIGA1UEAwwLcGluLmV4YW1wbGUwIBcNMjYxMTI3MTgxNTU5WhgPMjEy
        NjExMDMxODE1NTlaMBYxFDASBgNVBAMMC3Bpbi5leGFtcGxlMIIBIjANBgkqhkiG
        9w0BAQEFAAOCAQ8AMIIBCgKCAQEAyFJGcde8ofD3KA9Uz03UKuVuxDNqZ4PP4Wxe
        Z6F/6z7s8oiwhFb3wjke6FfsZCRnGetDDaDm/Ibjvk67qEQUKs969hJYo129aJ1l
        5ZKbHWbW1n+v9+3xxJWBRSkiqkretafQ7CwiEndZXQMRdgsK8QgT4lDrd2ZM3BFt
        aGlxlHkY9A4Vqqfg4bLPV4vECWjP8yR/kQ0Zg9zk0suBPtqnyvNISeHndyMK7YJ1
        ssW1T5Q7dRZbB7h3ButJaqygaqMxrRcO0rdZ79mdCCOsoSAXQoqQs+x8GokA8Owv
        ZuuF96jhowpjIssqeHHpkscgCERxqVaJFlFGfrjcn3A5Wt4yOwIDAQABo1MwUTAd
        BgNVHQ4EFgQUf+0Mjq+LNciyZPePEHWshZSSSlcwHwYDVR0jBBgwFoAUf+0Mjq+L
        NciyZPePEHWshZSSSlcwDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOC
        AQEACSn405w2NVtW3cDa37fiy/EAxNsYcdqftzdSQ3vQD2Aj8w9fllOvpvAjxi+M
        slbuGDAV6u6CXE8vpJ++V5nzYRVNDx/fCH2tEv9Tfnzh7rsvSNNzBjecZZuT7c9L
        L0rqxCWDFvqR3IDhaL5nUan/uBScM/3Gsf+rekzhLfJjW5hvk8UoYXROU3MPTD8a
        UFjvuOX0YwLz/fX+1jj2vUkV36J2odcUTOj+3BpMBhQwbatJuGcSQ1dhAMNXKkoO
        kS09pdrgh+E523/4/5wr1TTi/zfqQXbH4pQRVFddK7rBrIYlg6VjaqvLCNV8Wlv1
        /ilSpsWNOH3a3V1BGZKT3VMQog==
        -----END CERTIFICATE-----
        """
    static let rsaPin = "GEtkRwXgVaJALT52zwgEyXRYUpGLuH3ch0mBLboOA1A="

    @Test(arguments: [(ecCertificate, ecPin), (rsaCertificate, rsaPin)])
    func aCertificatesPinIsOpenSSLs(pem: String, pin: String) throws {
        let certificate = try TLSCertificate(pem: pem)
        #expect(certificate.publicKeyPin == (try PublicKeyPin(base64: pin)))
        #expect(certificate.publicKeyPin.description == "sha256/" + pin)
        #expect(try PublicKeyPin(base64: "sha256/" + pin) == certificate.publicKeyPin)
        #expect(PublicKeyPin(certificateDER: certificate.der) == certificate.publicKeyPin)
        #expect(try TLSCertificate(pem: certificate.pem) == certificate)
    }

    @Test func aBundleReadsInOrderAndSkipsOtherBlocks() throws {
        let bundle =
            Self.rsaCertificate + "\n-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
            + "text between blocks\n" + Self.ecCertificate
        let certificates = try TLSCertificate.certificates(pem: bundle)
        #expect(certificates.map(\.publicKeyPin.base64) == [Self.rsaPin, Self.ecPin])
    }

    @Test func everyTruncationOfACertificateFailsWithoutReadingPastTheEnd() throws {
        let der = Array(try TLSCertificate(pem: Self.rsaCertificate).der)
        for length in 0..<der.count {
            #expect(PublicKeyPin(certificateDER: der[0..<length]) == nil, "prefix of \(length) bytes")
        }
        var corrupted = der
        corrupted[1] = 0x84  // a four-byte length: far past the end
        #expect(PublicKeyPin(certificateDER: corrupted) == nil)
        #expect(throws: TLSSettingsError.self) { try TLSCertificate(der: Data(der.dropLast())) }
    }

    @Test(
        arguments: [[0x84, 0x80, 0x00, 0x00, 0x00], [0x84, 0xff, 0xff, 0xff, 0xff], [0x83, 0xff, 0xff, 0xff]]
            as [[UInt8]])
    func aLengthOfTwoToTheThirtyFirstOrMoreFailsToParseAtAnyIntWidth(length: [UInt8]) {
        // Read into a 32-bit Int (arm64_32), 0x80000000 and up turned negative and passed the bounds check.
        var reader = DERReader([0x30] + length + [0x01, 0x02])
        #expect(reader.next() == nil)
    }

    @Test func badInputIsRefusedNamingWhatWasWrong() {
        #expect(throws: TLSSettingsError("the pin \"nope!\" is not base64")) { try PublicKeyPin(base64: "nope!") }
        #expect(throws: TLSSettingsError("a SHA-256 pin is 32 bytes, not 3")) { try PublicKeyPin(base64: "AAAA") }
        #expect(throws: TLSSettingsError("the PEM text holds no CERTIFICATE block")) {
            try TLSCertificate.certificates(pem: "hello")
        }
        #expect(throws: TLSSettingsError("expected one certificate in the PEM text, found 2")) {
            try TLSCertificate(pem: Self.ecCertificate + "\n" + Self.rsaCertificate)
        }
        #expect(throws: TLSSettingsError.self) {
            try ClientIdentity.pem(certificateChain: Self.ecCertificate, privateKey: "no key here")
        }
    }

    @Test func pinningNeedsABackupAndChecksTheWholeChain() throws {
        let ec = try PublicKeyPin(base64: Self.ecPin)
        let rsa = try PublicKeyPin(base64: Self.rsaPin)
        let trust = ServerTrust.pinning(ec, backup: rsa)
        #expect(trust.pins == [ec, rsa] && trust.roots == .system)
        let zeros = try PublicKeyPin(sha256: Array(repeating: 0, count: 32))
        let ones = try PublicKeyPin(sha256: Array(repeating: 1, count: 32))
        #expect(trust.accepts([rsa]) && trust.accepts([zeros, ec]))
        #expect(!trust.accepts([]) && !trust.accepts([ones]))
        #expect(ServerTrust.system.accepts([]))
        #expect(TLSSettings(serverTrust: .system).isDefault && !TLSSettings(serverTrust: trust).isDefault)
        #expect(TLSSettings(serverTrust: trust) == TLSSettings(serverTrust: .pinning(ec, backup: rsa)))
    }

    @Test func aClientIdentitysDescriptionNeverShowsTheKey() throws {
        let identity = try ClientIdentity.pem(
            certificateChain: Self.ecCertificate,
            privateKey: "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n")
        let settings = TLSSettings(clientIdentity: identity)
        #expect(!"\(settings)".contains("c2VjcmV0") && "\(settings)".contains(Self.ecPin))
        #expect(!"\(ClientIdentity.pkcs12(Data([1, 2]), password: "hunter2"))".contains("hunter2"))
    }

    // A transport that does not say it applies TLS settings never sees a request of a client that has some.
    final class Unaware: Transport {
        let sent = Lock(0)
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            sent.withLock { $0 += 1 }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("{}".utf8)))
        }
    }

    @Test func aTransportThatDoesNotApplyTheSettingsIsRefusedBeforeSending() async throws {
        let pins = ServerTrust.pinning(
            try PublicKeyPin(base64: Self.ecPin), backup: try PublicKeyPin(base64: Self.rsaPin))
        let transport = Unaware()
        let client = KonexClient(
            baseURL: URL(string: "https://api.example.com")!, transport: transport, tls: TLSSettings(serverTrust: pins))
        let error = try await #require(throws: KonexError.self) { try await client.request("/posts").responseData() }
        let failure = try #require(error.underlyingError as? TransportFailure)
        #expect(error.stage == .transport && failure.kind == .secureConnectionFailed)
        let refusal = try #require(failure.underlying as? TLSFailure)
        guard case .unsupported(let text) = refusal.reason else {
            Issue.record("\(refusal)")
            return
        }
        #expect(text.hasPrefix("Unaware does not say it applies TLS settings"))
        #expect(refusal.pins == pins.pins && "\(error)".contains("sha256/" + Self.ecPin))
        #expect(transport.sent.value == 0)
        // The default settings ask nothing of it.
        _ = try await KonexClient(baseURL: URL(string: "https://api.example.com")!, transport: transport)
            .request("/posts").responseData()
        #expect(transport.sent.value == 1)
    }

    @Test func aPinnedClientRunsUnchangedOverAMock() async throws {
        let mock = MockTransport()
        mock.stub(.get("/posts"), .string("[]"))
        let pins = ServerTrust.pinning(
            try PublicKeyPin(base64: Self.ecPin), backup: try PublicKeyPin(base64: Self.rsaPin))
        let client = KonexClient(
            baseURL: URL(string: "https://api.example.com")!, transport: mock, tls: TLSSettings(serverTrust: pins))
        #expect(try await client.request("/posts").responseData() == Data("[]".utf8))
    }

    #if !canImport(Security)
        @Test func urlSessionOnLinuxRefusesEverySettingNamingWhatToUseInstead() async throws {
            let roots = ServerTrust.roots([try TLSCertificate(pem: Self.ecCertificate)])
            // Port 9 (discard) on loopback: had the request been sent, the error would be a connection's, not this.
            let client = KonexClient(baseURL: URL(string: "https://127.0.0.1:9")!, tls: TLSSettings(serverTrust: roots))
            let error = try await #require(throws: KonexError.self) { try await client.request("/").responseData() }
            let failure = try #require((error.underlyingError as? TransportFailure)?.underlying as? TLSFailure)
            #expect(
                "\(failure)".contains("URLSessionTransport cannot apply")
                    && "\(failure)".contains("AsyncHTTPClientTransport"))
            // Called directly, the transport refuses too.
            await #expect(throws: TLSFailure.self) {
                _ = try await URLSessionTransport().send(
                    TransportRequest(URLRequest(url: URL(string: "https://127.0.0.1:9")!)),
                    context: TransportContext(tls: TLSSettings(serverTrust: roots)))
            }
        }
    #endif
}
