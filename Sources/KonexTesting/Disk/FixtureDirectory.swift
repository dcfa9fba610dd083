import Foundation

/// A directory of fixtures; every path inside it is checked so that no fixture can escape it.
///
/// Fixtures can sit next to the test sources and be found from `#filePath` (fine on a Mac or Linux, where the sources
/// are on disk), or ship as SwiftPM resources of the test target, which also works on a device or in a simulator:
/// ```swift
/// let fixtures = FixtureDirectory(besides: #filePath, named: "Fixtures")   // Tests/MyAppTests/Fixtures
///
/// // Package.swift: .testTarget(name: "MyAppTests", resources: [.copy("Fixtures")])
/// let bundled = try FixtureDirectory(bundle: .module, named: "Fixtures")
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

    /// The folder `name` copied into `bundle` as a resource (`resources: [.copy("Fixtures")]`, then `Bundle.module`).
    /// - Parameters:
    ///   - bundle: The test target's resource bundle, usually `.module`.
    ///   - name: The copied folder's name; a path such as `"Fixtures/blog"` reaches inside it.
    /// - Throws: ``FixtureError`` when the bundle has no such folder (a resource declared with `.process` is
    ///   flattened, so use `.copy`).
    public init(bundle: Bundle, named name: String) throws {
        guard let resources = bundle.resourceURL else {
            throw FixtureError(
                "the bundle \(bundle.bundlePath) has no resources; declare resources: [.copy(\"\(name)\")]")
        }
        let folder = resources.appendingPathComponent(name, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw FixtureError(
                "no folder \"\(name)\" in the bundle \(bundle.bundlePath); declare resources: [.copy(\"\(name)\")] (.process flattens folders)"
            )
        }
        self.init(folder)
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
