import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Foundation's file and network errors as sentences that name the file or the host and the
/// cause, never "NSCocoaErrorDomain error 512" or a dump of the error's user info.
package enum SystemErrorText {
    /// A file error: "Could not write /a/b.html: no such folder."
    package static func sentence(for error: CocoaError) -> String {
        let path = (error.userInfo[NSFilePathErrorKey] as? String) ?? error.url?.path
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap { underlying in
            underlying.domain == NSPOSIXErrorDomain ? SystemErrorText.cause(of: Int32(underlying.code)) : nil
        }
        let file = path ?? "a file"
        let isWrite = error.code.rawValue >= CocoaError.fileWriteUnknown.rawValue && error.code.rawValue < 1024
        let verb = isWrite ? "write" : "read"
        let cause: String
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile:
            cause = underlying ?? "no such file"
        case .fileReadNoPermission, .fileWriteNoPermission:
            cause = "permission denied"
        case .fileWriteOutOfSpace:
            cause = "the disk is full"
        case .fileWriteVolumeReadOnly:
            cause = "the disk is read-only"
        case .fileWriteFileExists:
            cause = "a file of that name exists"
        case .fileReadCorruptFile:
            cause = "its contents are damaged or not in the expected format"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding:
            cause = "the text is not in a supported encoding (UTF-8 expected)"
        case .fileReadTooLarge:
            cause = "the file is too large"
        default:
            cause = underlying ?? "error \(error.code.rawValue)"
        }
        return "Could not \(verb) \(file): \(cause)."
    }

    /// A network error: "Could not reach api.spotify.com: the connection was refused."
    package static func sentence(for error: URLError) -> String {
        let url = error.failingURL
        let host = url?.host.map { host in url?.port.map { "\(host):\($0)" } ?? host } ?? "the server"
        let cause: String
        switch error.code {
        case .notConnectedToInternet: cause = "there is no network connection"
        case .timedOut: cause = "it did not answer in time"
        case .cannotFindHost, .dnsLookupFailed: cause = "the name could not be found (check it and the network)"
        case .cannotConnectToHost: cause = "the connection was refused (is it running?)"
        case .networkConnectionLost: cause = "the connection was lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            cause = "a secure (TLS) connection could not be made"
        case .badServerResponse, .cannotParseResponse: cause = "it sent an answer that is not HTTP"
        case .cancelled: cause = "the request was cancelled"
        case .badURL, .unsupportedURL: cause = "the address is not a valid http(s) URL"
        default: cause = "network error \(error.code.rawValue)"
        }
        return "Could not reach \(host): \(cause)."
    }

    /// Any other Foundation error: its file or URL if it names one, and a short cause.
    package static func sentence(for error: NSError) -> String {
        if error.domain == NSCocoaErrorDomain { return sentence(for: CocoaError(_nsError: error)) }
        if error.domain == NSURLErrorDomain { return sentence(for: URLError(_nsError: error)) }
        if error.domain == NSPOSIXErrorDomain {
            let path = error.userInfo[NSFilePathErrorKey] as? String
            return (path.map { "\($0): " } ?? "") + cause(of: Int32(error.code)) + "."
        }
        let description = error.localizedDescription
        return description.contains("Error Domain=") || description.contains("error \(error.code)")
            ? "A system call failed (\(error.domain) \(error.code))." : description
    }

    /// The cause an `errno` value names, in words: "no such file or folder".
    package static func cause(of code: Int32) -> String {
        switch code {
        case ENOENT: "no such file or folder"
        case EACCES, EPERM: "permission denied"
        case ENOSPC: "the disk is full"
        case EROFS: "the disk is read-only"
        case EISDIR: "it is a folder"
        case ENOTDIR: "a part of the path is not a folder"
        case ECONNREFUSED: "the connection was refused"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
