import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` over `URLSession` (FoundationNetworking on Linux).
///
/// Every client of the tool (Spotify, its accounts service, ReccoBeats, the token server's calls
/// upstream) sends through this one type, so its three guards hold everywhere:
///
/// - **Redirects keep credentials at home.** A redirect is followed only within the origin (scheme,
///   host and port) of the request, and with ``RedirectPolicy/never`` not at all. A redirect
///   elsewhere is never sent: the request fails with ``HTTPTransportError/redirectRefused(endpoint:location:)``,
///   so an `Authorization` header (a bearer token or the app's client secret) never reaches
///   another host, and another host's answer is never passed off as the service's.
/// - **A whole-request deadline.** `timeout` bounds the whole exchange, from sending to the last
///   byte, not only the gaps between bytes: a server that trickles a byte every few seconds fails
///   with ``HTTPTransportError/deadlineExceeded(endpoint:seconds:)``.
/// - **A body cap.** An answer longer than `maximumBodyBytes` is cut off as soon as it is known to
///   be (by its `Content-Length`, or while it arrives) and fails with
///   ``HTTPTransportError/responseTooLarge(endpoint:limit:)``; memory stays bounded.
///
/// Caching and cookies are off: the services answer with fresh data, and tokens travel in headers
/// only.
public struct URLSessionTransport: HTTPTransport {
    /// Which redirects the transport follows.
    public enum RedirectPolicy: Sendable, Hashable {
        /// Redirects within the request's origin (same scheme, host and port) are followed; any
        /// other fails with ``HTTPTransportError/redirectRefused(endpoint:location:)``.
        case sameOrigin
        /// No redirect is followed; every one fails with
        /// ``HTTPTransportError/redirectRefused(endpoint:location:)``. The token server uses it:
        /// the accounts service has no reason to redirect a token request.
        case never
    }

    /// The default body cap: 64 MiB, far above any answer of the APIs the tool calls (a page of
    /// 50 playlist items is about 200 KB).
    public static let defaultMaximumBodyBytes = 64 << 20

    private let session: URLSession
    private let delegate: SessionDelegate
    private let timeout: TimeInterval
    private let maximumBodyBytes: Int

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - timeout: Seconds the whole request may take, from sending to the last byte of the
    ///     answer. Past it the request fails as a network error, which ``RetryingTransport`` then
    ///     retries. Defaults to 30.
    ///   - redirects: Which redirects to follow. Defaults to ``RedirectPolicy/sameOrigin``.
    ///   - maximumBodyBytes: The longest answer accepted. Defaults to
    ///     ``defaultMaximumBodyBytes``.
    public init(
        timeout: TimeInterval = 30,
        redirects: RedirectPolicy = .sameOrigin,
        maximumBodyBytes: Int = URLSessionTransport.defaultMaximumBodyBytes
    ) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let delegate = SessionDelegate(redirects: redirects, maximumBodyBytes: maximumBodyBytes)
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        self.delegate = delegate
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headerFields {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = body
        let task = session.dataTask(with: urlRequest)
        let exchange = Exchange(endpoint: request.endpoint)
        let (response, data) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchange.start(continuation)
                delegate.register(exchange, for: task.taskIdentifier)
                task.resume()
                // The whole-request deadline: URLSession's own timeouts only bound the gaps
                // between bytes on Linux.
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [timeout] in
                    if exchange.fail(with: .deadlineExceeded(endpoint: request.endpoint, seconds: timeout)) {
                        task.cancel()
                    }
                }
            }
        } onCancel: {
            if exchange.fail(with: nil) { task.cancel() }
        }
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                fields[name.lowercased()] = value
            }
        }
        return (HTTPResponse(status: response.statusCode, headerFields: fields), data)
    }
}

/// Why ``URLSessionTransport`` gave up on a request that the server did answer, or was answering.
public enum HTTPTransportError: Error, Sendable, Hashable {
    /// The server redirected the request to `location`, outside what the transport's
    /// ``URLSessionTransport/RedirectPolicy`` allows; nothing was sent there.
    case redirectRefused(endpoint: String, location: String)
    /// The answer was longer than `limit` bytes; the rest was not read.
    case responseTooLarge(endpoint: String, limit: Int)
    /// The whole request took longer than `seconds`.
    case deadlineExceeded(endpoint: String, seconds: Double)

    /// Whether trying again may help: only a missed deadline may; a refused redirect or an
    /// oversized answer would come again.
    public var isRetryable: Bool {
        if case .deadlineExceeded = self { return true }
        return false
    }
}

extension HTTPTransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .redirectRefused(let endpoint, let location):
            "the server redirected \(endpoint) to \(location), another host or port; the request was not sent there, "
                + "so no credential left for it"
        case .responseTooLarge(let endpoint, let limit):
            "the answer to \(endpoint) is longer than \(limit / 1_048_576) MiB; it was cut off"
        case .deadlineExceeded(let endpoint, let seconds):
            "\(endpoint) did not finish within \(Self.format(seconds)) s"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}

// MARK: - One request in flight

/// The state of one request: the bytes so far, and the continuation that is resumed exactly once.
private final class Exchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>?
        var response: HTTPURLResponse?
        var data = Data()
        /// Set by the first failure that ends the request before URLSession does; `nil` inside
        /// means cancellation.
        var failure: HTTPTransportError??
        var isFinished = false
    }

    let endpoint: String
    private let state = Mutex(State())

    init(endpoint: String) { self.endpoint = endpoint }

    func start(_ continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Ends the request with `error` (`nil`: cancelled) unless it already ended.
    ///
    /// - Returns: Whether this call ended it, so the caller should cancel the URLSession task.
    @discardableResult
    func fail(with error: HTTPTransportError?) -> Bool {
        let continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.failure = .some(error)
            defer { state.continuation = nil }
            return state.continuation
        }
        guard let continuation else { return false }
        continuation.resume(throwing: error.map { $0 as any Error } ?? CancellationError())
        return true
    }

    func receive(_ response: URLResponse) {
        state.withLock { $0.response = response as? HTTPURLResponse }
    }

    /// Appends `bytes`; returns `false` when that passes `limit` (the caller then fails the request).
    func append(_ bytes: Data, limit: Int) -> Bool {
        state.withLock { state in
            guard state.data.count + bytes.count <= limit else { return false }
            state.data.append(bytes)
            return true
        }
    }

    /// URLSession finished the task, with `error` or without.
    func complete(error: (any Error)?) {
        let (continuation, result):
            (CheckedContinuation<(HTTPURLResponse, Data), any Error>?, Result<(HTTPURLResponse, Data), any Error>) =
                state.withLock { state in
                    guard !state.isFinished, let continuation = state.continuation else {
                        return (nil, .failure(CancellationError()))
                    }
                    state.isFinished = true
                    state.continuation = nil
                    if let error { return (continuation, .failure(error)) }
                    guard let response = state.response else {
                        return (continuation, .failure(URLError(.badServerResponse)))
                    }
                    return (continuation, .success((response, state.data)))
                }
        continuation?.resume(with: result)
    }
}

// MARK: - The session's delegate

/// Routes URLSession's callbacks to the request they belong to, and applies the redirect policy
/// and the body cap.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let redirects: URLSessionTransport.RedirectPolicy
    let maximumBodyBytes: Int
    private let exchanges = Mutex([Int: Exchange]())

    init(redirects: URLSessionTransport.RedirectPolicy, maximumBodyBytes: Int) {
        self.redirects = redirects
        self.maximumBodyBytes = maximumBodyBytes
    }

    func register(_ exchange: Exchange, for taskIdentifier: Int) {
        exchanges.withLock { $0[taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask, removing: Bool = false) -> Exchange? {
        exchanges.withLock { removing ? $0.removeValue(forKey: task.taskIdentifier) : $0[task.taskIdentifier] }
    }

    /// Whether `target` has the scheme, host and port of `origin` (default ports filled in).
    static func isSameOrigin(_ target: URL?, as origin: URL?) -> Bool {
        guard let target, let origin else { return false }
        func parts(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return (scheme, host, port)
        }
        guard let a = parts(target), let b = parts(origin) else { return false }
        return a == b
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let origin = task.originalRequest?.url
        if redirects == .sameOrigin && Self.isSameOrigin(request.url, as: origin) {
            completionHandler(request)
            return
        }
        let location =
            request.url.map { url in
                "\(url.scheme ?? "?")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
            } ?? "an unreadable address"
        if let exchange = exchange(for: task) {
            exchange.fail(with: .redirectRefused(endpoint: exchange.endpoint, location: location))
        }
        completionHandler(nil)
        task.cancel()
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(for: dataTask) else {
            completionHandler(.cancel)
            return
        }
        if response.expectedContentLength > Int64(maximumBodyBytes) {
            exchange.fail(with: .responseTooLarge(endpoint: exchange.endpoint, limit: maximumBodyBytes))
            completionHandler(.cancel)
            return
        }
        exchange.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = exchange(for: dataTask) else { return }
        if !exchange.append(data, limit: maximumBodyBytes) {
            exchange.fail(with: .responseTooLarge(endpoint: exchange.endpoint, limit: maximumBodyBytes))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(for: task, removing: true)?.complete(error: error)
    }
}
