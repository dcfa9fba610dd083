import Foundation
import Konex

extension Redaction {
    /// The entry with every listed header, query item and JSON field replaced.
    func apply(to entry: HAR.Entry) -> HAR.Entry {
        var entry = entry
        let header = { (item: HAR.NameValue) in
            HAR.NameValue(name: item.name, value: value(ofHeader: item.name, item.value))
        }
        entry.request.headers = entry.request.headers.map(header)
        entry.response.headers = entry.response.headers.map(header)
        entry.request.queryString = entry.request.queryString.map { item in
            HAR.NameValue(name: item.name, value: value(ofQueryItem: item.name, item.value))
        }
        entry.request.url = url(entry.request.url)
        if let post = entry.request.postData, post._encoding == nil {
            entry.request.postData?.text = redactJSON(post.text)
        }
        if let text = entry.response.content.text, entry.response.content.encoding == nil {
            entry.response.content.text = redactJSON(text)
        }
        return entry
    }
}
