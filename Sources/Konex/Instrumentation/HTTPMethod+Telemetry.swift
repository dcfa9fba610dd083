import Foundation

extension HTTPMethod {
    /// The method as OpenTelemetry's `http.request.method` names it: one of the standard methods as it is, any other
    /// `_OTHER`, so a label or attribute keeps a bounded set of values.
    public var telemetryName: String {
        switch rawValue {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE", "QUERY": rawValue
        default: "_OTHER"
        }
    }
}
