import Foundation
import Konex
import Testing

#if AsyncHTTPClient
    import KonexAsyncHTTPClient
    import NIOSSL

    /// Where the TLS servers are: scripts/test starts scripts/tls-server (three HTTPS servers on 127.0.0.1 with
    /// throwaway certificates: one CA's, another CA's, and one that requires a client certificate).
    enum TLSServers {
        static let environment = ProcessInfo.processInfo.environment
        static let directory = environment["KONEX_TLS_DIR"].map { URL(fileURLWithPath: $0) }
        static let url = environment["KONEX_TLS_URL"].flatMap(URL.init(string:))
        static let otherURL = environment["KONEX_TLS_OTHER_URL"].flatMap(URL.init(string:))
        static let mutualURL = environment["KONEX_TLS_MUTUAL_URL"].flatMap(URL.init(string:))
        static var isAvailable: Bool { directory != nil && url != nil && otherURL != nil && mutualURL != nil }
        static let skipReason: Comment = "KONEX_TLS_URL is not set: run scripts/test, which starts scripts/tls-server"

        static func text(_ name: String) throws -> String {
            try String(contentsOf: directory!.appendingPathComponent(name), encoding: .utf8)
        }
        static func certificate(_ name: String) throws -> TLSCertificate { try TLSCertificate(pem: text(name)) }
        static var roots: ServerTrust { get throws { .roots([try certificate("ca.pem")]) } }
        static var pemIdentity: ClientIdentity {
            get throws { try .pem(certificateChain: text("client.pem"), privateKey: text("client-key.pem")) }
        }
    }

    /// What scripts/tls_server.py answers: the path, and the common name of the client's certificate.
    struct TLSEcho: Decodable, Sendable, Equatable {
        let path: String
        let client: String?
    }

    @Suite struct TLSServersPrerequisites {
        @Test func theServersAreConfiguredWhenRequired() {
            if Server.isRequired && Live.isAsyncHTTPClient {
                #expect(TLSServers.isAvailable, "scripts/test must export KONEX_TLS_URL (scripts/tls-server)")
            }
        }
    }

    /// A refused certificate over `URLSessionTransport` is named as on every transport.
    @Suite(.enabled(if: TLSServers.isAvailable, TLSServers.skipReason))
    struct TLSFailuresOverURLSessionTests {
        @Test func anUntrustedCertificateIsASecureConnectionFailure() async throws {
            // On Linux libcurl's "SSL certificate problem: unable to get local issuer certificate" came as URLError
            // -1, kind `.other`: retried like any failure and labelled "other" in metrics.
            let client = KonexClient(
                baseURL: TLSServers.url!, transport: URLSessionTransport(configuration: .ephemeral))
            let error = try await #require(throws: KonexError.self) {
                try await client.request("/hello").responseData()
            }
            #expect(error.stage == .transport)
            #expect(error.transportFailure == .secureConnectionFailed, "\(error)")
        }
    }

    /// ``TLSSettings`` over AsyncHTTPClient against real TLS servers: custom roots, a client certificate, and pins
    /// refused (AsyncHTTPClient cannot check them), each proved by the server's own answer or refusal.
    @Suite(.enabled(if: TLSServers.isAvailable, TLSServers.skipReason))
    struct TLSSettingsOverAsyncHTTPClientTests {
        /// AsyncHTTPClient retries a failed connection (a refused certificate among them) until its connect timeout,
        /// and only then fails the request: 10 s with the shared client, 3 s with this one (never shut down: it lives
        /// as long as the test process).
        static let transport = AsyncHTTPClientTransport(
            client: AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(3)))
        var transport: AsyncHTTPClientTransport { Self.transport }

        func client(_ url: URL, _ tls: TLSSettings) -> KonexClient {
            KonexClient(baseURL: url, transport: transport, tls: tls)
        }

        /// The failure a refused connection surfaces as: a transport-stage error of kind `secureConnectionFailed`.
        func secureConnectionFailure(_ call: () async throws -> Void) async throws -> TransportFailure {
            let error = try await #require(throws: KonexError.self) { try await call() }
            let failure = try #require(error.underlyingError as? TransportFailure, "\(error)")
            #expect(error.stage == .transport && failure.kind == .secureConnectionFailed, "\(error)")
            return failure
        }

        @Test func customRootsTrustTheServerTheirCASigned() async throws {
            let echo = try await client(TLSServers.url!, TLSSettings(serverTrust: try TLSServers.roots))
                .request("/hello").responseObject(of: TLSEcho.self)
            #expect(echo == TLSEcho(path: "/hello", client: nil))
        }

        @Test func theSystemRootsRefuseTheThrowawayCA() async throws {
            _ = try await secureConnectionFailure {
                _ = try await client(TLSServers.url!, .default).request("/hello").responseData()
            }
        }

        @Test func aServerAnotherCASignedIsRefusedUnderCustomRoots() async throws {
            _ = try await secureConnectionFailure {
                _ = try await client(TLSServers.otherURL!, TLSSettings(serverTrust: try TLSServers.roots))
                    .request("/hello").responseData()
            }
        }

        @Test func pinsAreRefusedBeforeAConnectionNamingThePinsAndWhy() async throws {
            let current = try TLSServers.certificate("server.pem").publicKeyPin
            let backup = try TLSServers.certificate("other-server.pem").publicKeyPin
            let pinned = TLSSettings(
                serverTrust: .pinning(
                    current, backup: backup, roots: .certificates([try TLSServers.certificate("ca.pem")])))
            let failure = try await secureConnectionFailure {
                _ = try await client(TLSServers.url!, pinned).request("/hello").responseData()
            }
            let refusal = try #require(failure.underlying as? TLSFailure)
            #expect(refusal.pins == [current, backup])
            #expect("\(refusal)".contains("async-http-client#285") && "\(refusal)".contains(current.description))
        }

        @Test(arguments: ["PEM", "PKCS#12"])
        func aClientCertificateTheServerRequiresIsSent(form: String) async throws {
            let identity =
                form == "PEM"
                ? try TLSServers.pemIdentity
                : ClientIdentity.pkcs12(
                    try Data(contentsOf: TLSServers.directory!.appendingPathComponent("client.p12")), password: "konex")
            let echo = try await client(
                TLSServers.mutualURL!, TLSSettings(serverTrust: try TLSServers.roots, clientIdentity: identity)
            ).request("/me").responseObject(of: TLSEcho.self)
            #expect(echo == TLSEcho(path: "/me", client: "konex-test-client"))
        }

        @Test func oneTransportNeverLendsAConnectionMadeUnderOtherSettings() async throws {
            // A client with the certificate connects first; a client of the same transport without it must not be
            // answered on that connection (AsyncHTTPClient pools by TLS configuration).
            let withCertificate = client(
                TLSServers.mutualURL!,
                TLSSettings(serverTrust: try TLSServers.roots, clientIdentity: try TLSServers.pemIdentity))
            #expect(try await withCertificate.request("/a").responseObject(of: TLSEcho.self).client != nil)
            let without = client(TLSServers.mutualURL!, TLSSettings(serverTrust: try TLSServers.roots))
            await #expect(throws: KonexError.self) { _ = try await without.request("/b").responseData() }
        }

        @Test func aWrongPasswordIsATypedFailureNotACrash() async throws {
            let identity = ClientIdentity.pkcs12(
                try Data(contentsOf: TLSServers.directory!.appendingPathComponent("client.p12")), password: "wrong")
            let failure = try await secureConnectionFailure {
                _ = try await client(
                    TLSServers.mutualURL!, TLSSettings(serverTrust: try TLSServers.roots, clientIdentity: identity)
                ).request("/me").responseData()
            }
            guard case .unusable = (failure.underlying as? TLSFailure)?.reason else {
                Issue.record("\(failure)")
                return
            }
        }

        @Test func konexReadsTheSameKeyNIOSSLDoes() throws {
            for name in ["server.pem", "other-server.pem", "ca.pem", "client.pem"] {
                let nio = try NIOSSLCertificate(bytes: Array(try TLSServers.text(name).utf8), format: .pem)
                let spki = try nio.extractPublicKey().toSPKIBytes()
                #expect(try TLSServers.certificate(name).publicKeyPin == PublicKeyPin(subjectPublicKeyInfo: spki))
            }
        }
    }
#endif
