/// A hash that is the same in every process (Swift's `Hasher` is seeded per run): file names of disk entries, and
/// the credentials part of a cache key.
enum StableHash {
    /// FNV-1a, 64 bits, as hex. Not cryptographic: it names and separates, it does not protect.
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
