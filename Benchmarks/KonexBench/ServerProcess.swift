import Foundation

/// The static server in a process of its own (`konex-bench --serve`), so that the measured process does not share its
/// scheduler with the server's threads.
enum ServerProcess {
    /// Starts `konex-bench <flag>` (`--serve`, or `--serve-ws` for the WebSocket echo server) and returns its port,
    /// and the process to stop at the end.
    static func start(_ flag: String = "--serve") throws -> (port: UInt16, process: Process) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [flag]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The child prints its port on the first line.
        var line = Data()
        while line.last != 0x0A {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { throw ServerError("the server process exited before printing its port") }
            line.append(byte)
        }
        guard let port = UInt16(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw ServerError("the server process printed \(String(decoding: line, as: UTF8.self))") }
        return (port, process)
    }

    /// `--serve`: serve until killed, after printing the port.
    static func serve(routes: [String: Data]) throws -> Never {
        let server = try StaticServer(routes: routes)
        // Written straight to the descriptor: the parent is waiting for this line, and stdout is buffered.
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        // Serve while the benchmark lives: a parent that dies early (a thrown error) must not leave a server behind.
        let parent = getppid()
        while getppid() == parent { sleep(1) }
        exit(0)
    }
}
