import Foundation
import Konex

extension Redaction {
    /// The entry with every listed header, query item and JSON field replaced, and what was replaced listed in the
    /// entry's `_konex.redacted` field (so a reader of the fixture knows which values are placeholders).
    func apply(to entry: HAR.Entry) -> HAR.Entry {
        var entry = entry
        var redacted: Set<String> = []
        func header(_ item: HAR.NameValue) -> HAR.NameValue {
            let value = value(ofHeader: item.name, item.value)
            if value != item.value { redacted.insert("header \(item.name)") }
            return HAR.NameValue(name: item.name, value: value)
        }
        entry.request.headers = entry.request.headers.map(header)
        entry.response.headers = entry.response.headers.map(header)
        entry.request.queryString = entry.request.queryString.map { item in
            let value = value(ofQueryItem: item.name, item.value)
            if value != item.value { redacted.insert("query \(item.name)") }
            return HAR.NameValue(name: item.name, value: value)
        }
        entry.request.url = url(entry.request.url)
        var keys: Set<String> = []
        if let post = entry.request.postData, post._encoding == nil {
            entry.request.postData?.text = redactJSON(post.text, redactedKeys: &keys)
        }
        if let text = entry.response.content.text, entry.response.content.encoding == nil {
            entry.response.content.text = redactJSON(text, redactedKeys: &keys)
        }
        redacted.formUnion(keys.map { "json \($0)" })
        if !redacted.isEmpty {
            var info = entry._konex ?? HAR.KonexInfo()
            info.redacted = redacted.sorted()
            entry._konex = info
        }
        return entry
    }
}
