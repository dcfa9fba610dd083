/// One event of a `text/event-stream` (Server-Sent Events).
///
/// ```swift
/// for try await event in stream.events() where event.event == "delta" { print(event.data) }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the `event:` field, `"message"` when there was none.
    public var event: String
    /// The `data:` lines, joined with `"\n"`.
    public var data: String
    /// The last event ID at this event (it carries over from earlier events until an `id:` changes it); `nil` when
    /// none was set or it was reset with an empty `id:`.
    public var id: String?
    /// The reconnection time this event's block asked for with `retry:`, if it did.
    public var retry: Duration?

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// The event written as a `text/event-stream` block (`id`, `event`, `retry`, one `data:` line per line, then a
    /// blank line), for servers and test doubles.
    public var wireFormat: String {
        var text = ""
        if let id { text += "id: \(id)\n" }
        if event != "message" { text += "event: \(event)\n" }
        if let retry {
            text +=
                "retry: \(retry.components.seconds * 1_000 + retry.components.attoseconds / 1_000_000_000_000_000)\n"
        }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return text + "\n"
    }
}
