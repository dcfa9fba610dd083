import Foundation

/// The shared inputs beside the repository (`../shared/<name>`: the HAR corpus, the cookie test vectors), each with
/// a SOURCES.md saying where it is from; read in place, never copied in.
public enum SharedData {
    /// The folder `name` of `../shared`, or `nil` when this checkout has none beside it.
    public static func directory(_ name: String) -> URL? {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Tests/TestSupport
            .appendingPathComponent("../../../shared/\(name)").standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}
