import Foundation

/// A directory of fixtures; every path inside it is checked so that no fixture can escape it.
///
/// Fixtures can sit next to the test sources and be found without resource bundles, from `#filePath`:
/// ```swift
/// let fixtures = FixtureDirectory(besides: #filePath, named: "Fixtures")   // Tests/MyAppTests/Fixtures
/// ```
public struct FixtureDirectory: Sendable {
    /// The directory's URL (standardized, symlinks resolved).
    public let root: URL

    /// Creates a fixture directory at `url`.
    public init(_ url: URL) {
        root = url.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// The directory named `name` next to the source file `filePath` (pass `#filePath`).
    public init(besides filePath: String = #filePath, named name: String = "Fixtures") {
        self.init(
            URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent(name, isDirectory: true))
    }

    /// The URL of a fixture, refusing absolute paths, `..` and symlinks that lead outside the directory.
    /// - Parameter relativePath: A path such as `"posts/1.get.json"`.
    /// - Throws: ``FixtureError`` naming the offending path.
    public func url(_ relativePath: String) throws -> URL {
        if relativePath.hasPrefix("/") || relativePath.hasPrefix("~") {
            throw FixtureError(
                "fixture path \"\(relativePath)\" is absolute; fixture paths are relative to \(root.path)")
        }
        if relativePath.split(separator: "/").contains("..") {
            throw FixtureError("fixture path \"\(relativePath)\" contains \"..\" and could leave \(root.path)")
        }
        let candidate = root.appendingPathComponent(relativePath).standardizedFileURL.resolvingSymlinksInPath()
        guard candidate.path == root.path || candidate.path.hasPrefix(root.path + "/") else {
            throw FixtureError("fixture path \"\(relativePath)\" resolves to \(candidate.path), outside \(root.path)")
        }
        return candidate
    }

    /// Every regular file below the directory, as paths relative to it, sorted.
    func files() throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FixtureError("fixture directory \(root.path) does not exist")
        }
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { throw FixtureError("fixture directory \(root.path) does not exist") }
        var paths: [String] = []
        for case let url as URL in enumerator {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let full = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard full.hasPrefix(root.path + "/") else { continue }  // a symlink out of the directory is ignored
            paths.append(String(full.dropFirst(root.path.count + 1)))
        }
        return paths.sorted()
    }
}
