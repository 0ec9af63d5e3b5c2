import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One GET without following a redirect, as a browser's first hop: the status, body and
/// `Location` of the answer (the sign-in tests read the authorization code from it).
public func fetchWithoutRedirect(_ url: URL) async throws -> (status: Int, body: Data, location: String?) {
    final class StopRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
    let session = URLSession(configuration: .loopback, delegate: StopRedirects(), delegateQueue: nil)
    let (data, response) = try await session.data(from: url)
    let http = response as! HTTPURLResponse
    return (http.statusCode, data, http.value(forHTTPHeaderField: "Location"))
}

extension URLSessionConfiguration {
    /// An ephemeral configuration whose requests wait ``loopbackTimeout`` for a fake in this process.
    public static var loopback: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = loopbackTimeout
        return configuration
    }
}
