#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import NIOSSL

    extension AsyncHTTPClientTransport {
        /// Applies custom roots and a client identity (PEM or PKCS#12) through each request's TLS configuration
        /// (AsyncHTTPClient keeps a pool per configuration, so a connection is never shared across settings). Refuses
        /// pins: AsyncHTTPClient verifies the chain inside its connection pool and offers neither the certificates nor
        /// a verification hook (swift-server/async-http-client#285), so a pin could only be ignored.
        public func checkCanApply(_ tls: TLSSettings) throws {
            guard tls.serverTrust.pins.isEmpty else {
                throw TLSFailure.unsupported(
                    by: "AsyncHTTPClientTransport",
                    "cannot pin public keys: AsyncHTTPClient exposes no certificate and no verification hook "
                        + "(swift-server/async-http-client#285); trust your own CA with ServerTrust.roots, or pin "
                        + "over URLSessionTransport on Apple platforms", in: tls)
            }
        }

        /// The TLS configuration of requests under `tls`: NIOSSL's client defaults with the settings applied (a request's
        /// configuration replaces the `HTTPClient`'s, which AsyncHTTPClient does not expose), made once per settings:
        /// reading the certificates and the key for each request would cost more than the request.
        func tlsConfiguration(for tls: TLSSettings) throws -> TLSConfiguration {
            try checkCanApply(tls)
            if let made = tlsConfigurations.withLock({ $0[tls] }) { return made }
            let made = try tls.applied(to: .makeClientConfiguration())
            tlsConfigurations.withLock { $0[tls] = made }
            return made
        }
    }
#endif
