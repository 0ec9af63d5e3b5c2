import CLibCrypto
import Foundation

/// SHA-256 over OpenSSL's libcrypto, in swift-crypto's shape, so that the importers hash files
/// without linking swift-crypto (libcurl, under the network clients, loads libcrypto anyway).
///
/// A value: a copy hashes on from the same place without changing the original.
package struct SHA256: Sendable {
    /// A finished hash: 32 bytes.
    package struct Digest: Sequence, Sendable, Hashable {
        package let bytes: [UInt8]

        package func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    }

    private var context = SHA256_CTX()

    package init() {
        SHA256_Init(&context)
    }

    /// Adds the bytes of `bufferPointer`.
    package mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        guard let base = bufferPointer.baseAddress, !bufferPointer.isEmpty else { return }
        SHA256_Update(&context, base, bufferPointer.count)
    }

    /// Adds the bytes of `data`.
    package mutating func update(data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { update(bufferPointer: $0) }
        }
    }

    /// The hash of the bytes added so far; the hasher can go on.
    package func finalize() -> Digest {
        var context = context
        var bytes = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        SHA256_Final(&bytes, &context)
        return Digest(bytes: bytes)
    }

    /// The hash of `data`.
    package static func hash(data: some DataProtocol) -> Digest {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }
}
