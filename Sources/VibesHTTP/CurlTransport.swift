import CCurl
import Foundation
import Synchronization

/// The name this transport had when it sent through `URLSession`; older code still uses it.
public typealias URLSessionTransport = CurlTransport

/// An ``HTTPTransport`` over libcurl: the network under every client of the tool (Spotify, its
/// accounts service, ReccoBeats, the token server's calls upstream).
///
/// It sends through libcurl's blocking interface on a thread of its own rather than through
/// FoundationNetworking's `URLSession`, which on Linux keeps a core busy for as long as it waits
/// for an answer (measured: 1.5 s of CPU for a request answered after 2 s). Its three guards hold
/// for every client:
///
/// - **Redirects keep credentials at home.** A redirect is followed (up to five) only within the
///   origin (scheme, host and port) of the request, and with ``RedirectPolicy/never`` not at all.
///   A redirect elsewhere is never sent: the request fails with
///   ``HTTPTransportError/redirectRefused(endpoint:location:)``, so an `Authorization` header (a
///   bearer token or the app's client secret) never reaches another host, and another host's
///   answer is never passed off as the service's.
/// - **A whole-request deadline.** `timeout` bounds the whole exchange, redirects included, from
///   sending to the last byte, not only the gaps between bytes: a server that trickles a byte every
///   few seconds fails with ``HTTPTransportError/deadlineExceeded(endpoint:seconds:)``.
/// - **A body cap.** An answer longer than `maximumBodyBytes` (after decompression) is cut off as
///   soon as it is known to be, by its `Content-Length` or while it arrives, and fails with
///   ``HTTPTransportError/responseTooLarge(endpoint:limit:)``; memory stays bounded.
///
/// Nothing is cached and no cookie is kept: tokens travel in headers only. Connections are kept
/// open between requests of the same transport.
public struct CurlTransport: HTTPTransport {
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
    /// The most redirects one request follows.
    public static let maximumRedirects = 5

    private let timeout: TimeInterval
    private let redirects: RedirectPolicy
    private let maximumBodyBytes: Int
    private let handles = CurlHandlePool()

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - timeout: Seconds the whole request may take, redirects included, from sending to the
    ///     last byte of the answer. Past it the request fails as a network error, which
    ///     ``RetryingTransport`` then retries. Defaults to 30.
    ///   - redirects: Which redirects to follow. Defaults to ``RedirectPolicy/sameOrigin``.
    ///   - maximumBodyBytes: The longest answer accepted. Defaults to
    ///     ``defaultMaximumBodyBytes``.
    public init(
        timeout: TimeInterval = 30,
        redirects: RedirectPolicy = .sameOrigin,
        maximumBodyBytes: Int = CurlTransport.defaultMaximumBodyBytes
    ) {
        self.timeout = timeout
        self.redirects = redirects
        self.maximumBodyBytes = maximumBodyBytes
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let endpoint = request.endpoint
        let deadline = ContinuousClock.now + .milliseconds(Int64((timeout * 1000).rounded()))
        var current = request
        var currentBody = body
        for _ in 0...Self.maximumRedirects {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                throw HTTPTransportError.deadlineExceeded(endpoint: endpoint, seconds: timeout)
            }
            let (response, data) = try await perform(current, body: currentBody, within: remaining, endpoint: endpoint)
            guard [301, 302, 303, 307, 308].contains(response.status),
                let location = response[headerField: "Location"],
                let target = URL(string: location, relativeTo: current.url)?.absoluteURL
            else { return (response, data) }
            guard redirects == .sameOrigin, Self.isSameOrigin(target, as: request.url) else {
                throw HTTPTransportError.redirectRefused(endpoint: endpoint, location: Self.origin(of: target))
            }
            current.url = target
            // As browsers and URLSession do: 303 always, and 301 or 302 after a POST, become a GET.
            if response.status == 303 || ((response.status == 301 || response.status == 302) && current.method == .post)
            {
                current.method = .get
                currentBody = nil
            }
        }
        throw HTTPTransportError.redirectRefused(
            endpoint: endpoint,
            location: "more than \(Self.maximumRedirects) redirects"
        )
    }

    /// One request and its answer, without following redirects.
    private func perform(
        _ request: HTTPRequest,
        body: Data?,
        within remaining: Duration,
        endpoint: String
    ) async throws -> (HTTPResponse, Data) {
        let exchange = CurlExchange(endpoint: endpoint, limit: maximumBodyBytes, timeout: timeout)
        let milliseconds = max(
            1,
            Int(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
        )
        let handles = handles
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // libcurl blocks its thread until the answer is in: a thread of its own, neither
                // one of Swift's cooperative threads nor one of Dispatch's pool (two threads on
                // two cores, which other work, servers included, needs too).
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result {
                            try handles.withHandle { handle in
                                try exchange.run(request, body: body, on: handle, timeoutMilliseconds: milliseconds)
                            }
                        }
                    )
                }
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    /// Whether `target` has the scheme, host and port of `origin` (default ports filled in).
    static func isSameOrigin(_ target: URL, as origin: URL) -> Bool {
        func parts(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return (scheme, host, url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1))
        }
        guard let a = parts(target), let b = parts(origin) else { return false }
        return a == b
    }

    static func origin(of url: URL) -> String {
        "\(url.scheme ?? "?")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
    }
}

/// Why a transport gave up on a request.
public enum HTTPTransportError: Error, Sendable, Hashable {
    /// The server redirected the request to `location`, outside what the transport's
    /// ``CurlTransport/RedirectPolicy`` allows; nothing was sent there.
    case redirectRefused(endpoint: String, location: String)
    /// The answer was longer than `limit` bytes; the rest was not read.
    case responseTooLarge(endpoint: String, limit: Int)
    /// The whole request took longer than `seconds`.
    case deadlineExceeded(endpoint: String, seconds: Double)
    /// No answer arrived: the host could not be resolved or reached, or the connection broke.
    case unreachable(endpoint: String, reason: String)

    /// Whether trying again may help: after a missed deadline or a lost connection it may; a
    /// refused redirect or an oversized answer would come again.
    public var isRetryable: Bool {
        switch self {
        case .deadlineExceeded, .unreachable: true
        case .redirectRefused, .responseTooLarge: false
        }
    }
}

extension HTTPTransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .redirectRefused(let endpoint, let location):
            "the server redirected \(endpoint) to \(location), another host or port; the request was not sent there, "
                + "so no credential left for it"
        case .responseTooLarge(let endpoint, let limit):
            "the answer to \(endpoint) is longer than \(Self.format(bytes: limit)); it was cut off"
        case .deadlineExceeded(let endpoint, let seconds):
            "\(endpoint) did not finish within \(Self.format(seconds)) s"
        case .unreachable(_, let reason):
            reason
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }

    private static func format(bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}

// MARK: - libcurl

/// An easy handle; libcurl keeps its connections open between the requests it performs.
private struct CurlHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// Idle easy handles, reused so that requests to the same host share connections.
private final class CurlHandlePool: Sendable {
    private static let isInitialised: Bool = curl_global_init(3) == CURLE_OK  // CURL_GLOBAL_ALL
    private static let maximumIdle = 4
    private let idle = Mutex<[CurlHandle]>([])

    func withHandle<T>(_ body: (UnsafeMutableRawPointer) throws -> T) throws -> T {
        precondition(Self.isInitialised, "libcurl could not be initialised")
        let handle = idle.withLock { $0.popLast() } ?? curl_easy_init().map(CurlHandle.init)
        guard let handle else { throw HTTPTransportError.unreachable(endpoint: "", reason: "libcurl has no memory") }
        defer {
            let kept = idle.withLock { handles in
                guard handles.count < Self.maximumIdle else { return false }
                handles.append(handle)
                return true
            }
            if !kept { curl_easy_cleanup(handle.raw) }
        }
        return try body(handle.raw)
    }

    deinit {
        for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.raw) }
    }
}

/// One request on one handle: the answer's head and body as they arrive, and cancellation.
private final class CurlExchange: @unchecked Sendable {
    let endpoint: String
    let limit: Int
    let timeout: TimeInterval
    private let isCancelled = Atomic(false)
    // Written only by libcurl's callbacks on the thread that runs `run`.
    private var body = Data()
    private var headers: [String: String] = [:]
    private var isTooLarge = false

    init(endpoint: String, limit: Int, timeout: TimeInterval) {
        self.endpoint = endpoint
        self.limit = limit
        self.timeout = timeout
    }

    func cancel() { isCancelled.store(true, ordering: .relaxed) }

    func run(
        _ request: HTTPRequest,
        body requestBody: Data?,
        on handle: UnsafeMutableRawPointer,
        timeoutMilliseconds: Int
    ) throws -> (HTTPResponse, Data) {
        curl_easy_reset(handle)
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        for (name, value) in request.headerFields {
            list = curl_slist_append(list, "\(name): \(value)")
        }
        list = curl_slist_append(list, "Expect:")  // no 100-continue round trip
        let context = Unmanaged.passUnretained(self).toOpaque()
        vibes_curl_setopt_pointer(handle, CURLOPT_URL, request.url.absoluteString)
        vibes_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        vibes_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        vibes_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        vibes_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds)
        vibes_curl_setopt_pointer(handle, CURLOPT_ACCEPT_ENCODING, "")  // every encoding libcurl decodes
        vibes_curl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit))
        vibes_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, list)
        vibes_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION, curlWrite)
        vibes_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        vibes_curl_setopt_write(handle, CURLOPT_HEADERFUNCTION, curlHeader)
        vibes_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        vibes_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        vibes_curl_setopt_progress(handle, curlProgress)
        vibes_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        switch request.method {
        case .get:
            vibes_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case .post, .put, .delete:
            if request.method != .post {
                vibes_curl_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
            if request.method != .delete || requestBody != nil {
                // A PUT or POST without a body still says `Content-Length: 0`, as Spotify's player
                // endpoints require.
                let bytes = requestBody ?? Data()
                vibes_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                bytes.withUnsafeBytes { buffer in
                    // Copied by libcurl before this returns.
                    _ = vibes_curl_setopt_pointer(
                        handle,
                        CURLOPT_COPYPOSTFIELDS,
                        buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
                    )
                }
            }
        }
        let code = curl_easy_perform(handle)
        switch code {
        case CURLE_OK:
            var status = 0
            vibes_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            return (HTTPResponse(status: status, headerFields: headers), body)
        case CURLE_ABORTED_BY_CALLBACK:
            throw CancellationError()
        case CURLE_OPERATION_TIMEDOUT:
            throw HTTPTransportError.deadlineExceeded(endpoint: endpoint, seconds: timeout)
        case CURLE_FILESIZE_EXCEEDED:
            throw HTTPTransportError.responseTooLarge(endpoint: endpoint, limit: limit)
        case CURLE_WRITE_ERROR where isTooLarge:
            throw HTTPTransportError.responseTooLarge(endpoint: endpoint, limit: limit)
        default:
            throw HTTPTransportError.unreachable(endpoint: endpoint, reason: Self.reason(for: code, url: request.url))
        }
    }

    /// A sentence for a failed exchange that names the host and the likely cause, in place of
    /// libcurl's own text ("Failed to connect to … after 0 ms: Couldn't connect to server").
    static func reason(for code: CURLcode, url: URL) -> String {
        let host = url.host ?? url.absoluteString
        let place = url.port.map { "\(host) port \($0)" } ?? host
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return "the host \(host) could not be found (check its name and the network connection)"
        case CURLE_COULDNT_RESOLVE_PROXY:
            return "the proxy for \(host) could not be found (check the proxy settings, such as https_proxy)"
        case CURLE_COULDNT_CONNECT:
            return
                "\(place) refused the connection or could not be reached (is the service up and the network connected?)"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            return
                "the secure connection to \(host) failed: its certificate could not be verified or the handshake broke"
        case CURLE_GOT_NOTHING:
            return "\(place) closed the connection without answering"
        case CURLE_SEND_ERROR:
            return "the connection to \(place) broke while the request was being sent"
        case CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            return "the connection to \(place) broke while the answer was arriving"
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return "\(url.absoluteString) is not an address this program can reach (expected http:// or https://)"
        default:
            return "the exchange with \(place) failed (\(String(cString: curl_easy_strerror(code))))"
        }
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= limit else {
            isTooLarge = true
            return 0  // libcurl stops with CURLE_WRITE_ERROR
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers = [:]  // the head of a new answer (after `100 Continue`, or a proxy's)
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return bytes.count
    }

    fileprivate var shouldAbort: Bool { isCancelled.load(ordering: .relaxed) }
}

/// libcurl's data callbacks: `(bytes, size, count, context)`, answering how many bytes were taken.
private typealias CurlDataCallback =
    @convention(c) (
        UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?
    ) -> Int

/// Hands the `size · count` bytes of a callback to the exchange behind `context`.
private func deliver(
    _ data: UnsafeMutablePointer<CChar>?,
    _ byteCount: Int,
    to context: UnsafeMutableRawPointer?,
    _ receive: (CurlExchange) -> (UnsafeRawBufferPointer) -> Int
) -> Int {
    guard let context else { return 0 }
    return receive(Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue())(
        UnsafeRawBufferPointer(start: data, count: byteCount)
    )
}

private let curlWrite: CurlDataCallback = { data, size, count, context in
    deliver(data, size * count, to: context, CurlExchange.receiveBody)
}

private let curlHeader: CurlDataCallback = { data, size, count, context in
    deliver(data, size * count, to: context, CurlExchange.receiveHeaderLine)
}

private let curlProgress:
    @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = {
        context,
        _,
        _,
        _,
        _ in
        guard let context else { return 0 }
        return Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue().shouldAbort ? 1 : 0
    }
