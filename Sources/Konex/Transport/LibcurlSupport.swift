#if canImport(FoundationNetworking) && os(Linux) && (arch(x86_64) || arch(arm64))
    import Foundation
    import Glibc

    /// What FoundationNetworking's libcurl speaks, read once at run time: on Linux, URLSession's WebSockets need a
    /// libcurl built with `ws`/`wss`, and Debian's 7.88 is not (swift-corelibs-foundation #5431).
    enum LibcurlSupport {
        /// libcurl's version and protocols; `nil` when they cannot be read (then Konex just tries).
        static let info: (version: String, protocols: Set<String>)? = {
            guard let handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_NOLOAD) ?? dlopen("libcurl.so.4", RTLD_NOW),
                let symbol = dlsym(handle, "curl_version_info")
            else { return nil }
            typealias VersionInfo = @convention(c) (Int32) -> UnsafeRawPointer?
            // CURLVERSION_FOURTH: every field read here has been at the same place since the first version.
            guard let data = unsafeBitCast(symbol, to: VersionInfo.self)(3) else { return nil }
            // struct curl_version_info_data on LP64: age, version @8, version_num, host, features, ssl_version,
            // ssl_version_num, libz_version, protocols @64 (a NULL-ended array of C strings).
            let version = data.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
            guard let list = data.load(fromByteOffset: 64, as: UnsafePointer<UnsafePointer<CChar>?>?.self) else {
                return nil
            }
            var protocols = Set<String>()
            var index = 0
            while index < 64, let name = list[index] {
                protocols.insert(String(cString: name))
                index += 1
            }
            return (version ?? "?", protocols)
        }()
    }
#endif
