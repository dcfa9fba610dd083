#if AsyncHTTPClient
    /// A `gzip` or `deflate` body inflated past the `HTTPClient`'s decompression limit.
    ///
    /// The ``Konex/TransportFailure/underlying`` error of a
    /// ``Konex/TransportFailure/Kind/decompressionLimitExceeded`` failure over ``AsyncHTTPClientTransport``.
    public struct DecompressionLimitExceeded: Error, Sendable, CustomStringConvertible {
        public var description: String {
            "the body inflated past the HTTPClient's decompression limit (a decompression bomb's defence; a client "
                + "made by AsyncHTTPClientTransport.makeClient allows 200 times the compressed size): raise it with "
                + "makeClient(maximumDecompressionRatio:), or with HTTPClient.Configuration.decompression on a client "
                + "of your own"
        }
    }
#endif
