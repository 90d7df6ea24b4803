import Foundation

/// A growable byte buffer reused for every element's text, always followed by a NUL byte (so
/// `strtod` can read from it); owns its memory and frees it in `deinit`.
///
/// For example:
///
/// ```swift
/// let buffer = XMLTextBuffer()
/// buffer.append(bytes)
/// XMLValueDecoding().value(of: .double, from: buffer.bytes)
/// buffer.removeAll()
/// ```
final class XMLTextBuffer {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity + 1)
        storage[0] = 0
    }

    deinit { storage.deallocate() }

    /// The bytes held, valid until the buffer next changes; `bytes[count]` is NUL.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    /// The bytes held as a NUL-terminated C string, valid until the buffer next changes.
    var cString: UnsafePointer<UInt8> { UnsafePointer(storage) }

    func removeAll() {
        count = 0
        storage[0] = 0
    }

    func append(_ more: UnsafeBufferPointer<UInt8>) {
        guard let source = more.baseAddress, !more.isEmpty else { return }
        if count + more.count > capacity {
            var newCapacity = capacity * 2
            while newCapacity < count + more.count { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + 1)
            grown.update(from: storage, count: count)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
        }
        (storage + count).update(from: source, count: more.count)
        count += more.count
        storage[count] = 0
    }
}

extension XMLTextBuffer {
    func append(_ byte: UInt8) {
        withUnsafePointer(to: byte) { append(UnsafeBufferPointer(start: $0, count: 1)) }
    }

    /// Appends the UTF-8 of `text` as it is (no escaping).
    func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    func append(_ data: Data) {
        data.withUnsafeBytes { append($0.bindMemory(to: UInt8.self)) }
    }
}
