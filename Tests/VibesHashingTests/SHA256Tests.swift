import Crypto
import Foundation
import Testing
import VibesHashing

struct SHA256Tests {
    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesThePublishedVectors(input: String, expected: String) {
        #expect(Self.hex(VibesHashing.SHA256.hash(data: Data(input.utf8))) == expected)
    }

    @Test func chunkedUpdatesMatchSwiftCrypto() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300_001).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var hasher = VibesHashing.SHA256()
        var start = 0
        for size in [0, 1, 63, 64, 65, 4096, 100_000] where start < bytes.count {
            let end = min(start + size, bytes.count)
            bytes[start..<end].withUnsafeBytes { hasher.update(bufferPointer: $0) }
            start = end
        }
        hasher.update(data: bytes[start...])
        #expect(Self.hex(hasher.finalize()) == Self.hex(Crypto.SHA256.hash(data: bytes)))
    }

    @Test func aCopyHashesOnWithoutChangingTheOriginal() {
        var original = VibesHashing.SHA256()
        original.update(data: Data("first part, ".utf8))
        var copy = original
        copy.update(data: Data("read ahead".utf8))
        #expect(Self.hex(original.finalize()) == Self.hex(Crypto.SHA256.hash(data: Data("first part, ".utf8))))
        #expect(
            Self.hex(copy.finalize()) == Self.hex(Crypto.SHA256.hash(data: Data("first part, read ahead".utf8)))
        )
        // Finalizing leaves the hasher usable.
        original.update(data: Data("more".utf8))
        #expect(Self.hex(original.finalize()) == Self.hex(Crypto.SHA256.hash(data: Data("first part, more".utf8))))
    }
}
