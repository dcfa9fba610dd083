import Foundation

// Shared by konex-bench's `sse_parse` and Benchmarks/Peers (whose sse-peers target links this file), so both parse
// the same bytes.

/// A realistic event stream (LLM-style deltas with ids, some multi-line data, comments) of about `megabytes`.
func sampleEventStream(megabytes: Int) -> (Data, events: Int) {
    var text = ""
    var events = 0
    while text.utf8.count < megabytes << 20 {
        events += 1
        if events % 50 == 0 { text += ": keep-alive\n" }
        text += "id: \(events)\nevent: delta\n"
        text +=
            events % 10 == 0
            ? "data: {\"text\": \"line one\",\ndata:  \"more\": \"line two é\"}\n\n"
            : "data: {\"choices\":[{\"delta\":{\"content\":\"token \(events) ☕\"}}]}\n\n"
    }
    return (Data(text.utf8), events)
}
