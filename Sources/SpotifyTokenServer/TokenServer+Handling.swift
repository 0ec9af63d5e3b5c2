import FlyingFox
import Foundation
import SpotifyWebAPI
import VibesHTTP

/// A response and the OAuth error code it carries, for the access log.
struct TokenServerOutcome: Sendable {
    var response: FlyingFox.HTTPResponse
    var error: String?
}

extension TokenServer {
    /// Answers one request: rate limit, route, size limit, form, then the endpoint, within
    /// ``Limits/requestTimeout``. Logs it.
    ///
    /// - Parameter bodyIsTooLarge: Whether the body was longer than ``Limits/maximumBodyBytes``
    ///   and was not read.
    func respond(to request: FlyingFox.HTTPRequest, bodyIsTooLarge: Bool = false) async -> FlyingFox.HTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        let date = Date()
        let client = clientAddress(of: request)
        let timeout = configuration.limits.requestTimeout
        let outcome = await withTaskGroup(of: TokenServerOutcome?.self) { group in
            group.addTask { await self.outcome(for: request, client: client, bodyIsTooLarge: bodyIsTooLarge) }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
                ?? Self.failure(
                    .gatewayTimeout,
                    error: "server_error",
                    description: "Spotify's accounts service did not answer in time."
                )
        }
        accessLog(
            AccessLogEntry(
                date: date,
                clientAddress: client,
                method: AccessLogEntry.printable(request.method.rawValue, limit: 16),
                path: AccessLogEntry.loggedPath(request.path),
                status: outcome.response.statusCode.code,
                duration: start.duration(to: clock.now),
                error: AccessLogEntry.loggedErrorCode(outcome.error)
            )
        )
        return outcome.response
    }

    private func outcome(
        for request: FlyingFox.HTTPRequest,
        client: String,
        bodyIsTooLarge: Bool
    ) async -> TokenServerOutcome {
        if let wait = limiter.acquire(for: client) {
            let seconds = max(1, Int((wait / .seconds(1)).rounded(.up)))
            var outcome = Self.failure(
                .tooManyRequests,
                error: "too_many_requests",
                description: "Too many requests from this address; try again in \(seconds) s."
            )
            outcome.response.headers[HTTPHeader("Retry-After")] = String(seconds)
            return outcome
        }
        guard request.path == Self.swapPath || request.path == Self.refreshPath else {
            return Self.failure(
                .notFound,
                error: "not_found",
                description: "This server answers POST \(Self.swapPath) and POST \(Self.refreshPath)."
            )
        }
        guard request.method == .POST else {
            var outcome = Self.failure(
                .methodNotAllowed,
                error: "method_not_allowed",
                description: "\(request.path) answers POST only."
            )
            outcome.response.headers[HTTPHeader("Allow")] = "POST"
            return outcome
        }
        let form: [String: String]
        switch await readForm(of: request, bodyIsTooLarge: bodyIsTooLarge) {
        case .success(let fields): form = fields
        case .failure(let failure): return failure.outcome
        }
        return request.path == Self.swapPath ? await swap(form) : await refresh(form)
    }

    // MARK: - Endpoints

    private func swap(_ form: [String: String]) async -> TokenServerOutcome {
        guard let code = form["code"], !code.isEmpty else {
            return Self.failure(.badRequest, error: "invalid_request", description: "The form field code is missing.")
        }
        var fields = ["grant_type": "authorization_code", "code": code, "redirect_uri": configuration.redirectURI]
        if let verifier = form["code_verifier"], !verifier.isEmpty { fields["code_verifier"] = verifier }
        return await requestToken(fields)
    }

    private func refresh(_ form: [String: String]) async -> TokenServerOutcome {
        guard let sealed = form["refresh_token"], !sealed.isEmpty else {
            return Self.failure(
                .badRequest,
                error: "invalid_request",
                description: "The form field refresh_token is missing."
            )
        }
        let refreshToken: String
        do {
            refreshToken = try sealer.open(sealed)
        } catch {
            return Self.failure(.badRequest, error: "invalid_token", description: "\(error)")
        }
        return await requestToken(["grant_type": "refresh_token", "refresh_token": refreshToken])
    }

    /// Sends `fields` to the accounts service with the client secret, and answers with Spotify's
    /// response: errors as they are, success with the refresh token sealed.
    private func requestToken(_ fields: [String: String]) async -> TokenServerOutcome {
        let basic = Data("\(configuration.clientID):\(configuration.clientSecret)".utf8).base64EncodedString()
        let request = VibesHTTP.HTTPRequest(
            method: .post,
            url: configuration.accountsBaseURL.appendingPathComponent("api/token"),
            headerFields: [
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
                "Authorization": "Basic \(basic)",
            ]
        )
        let response: VibesHTTP.HTTPResponse
        let data: Data
        do {
            (response, data) = try await transport.send(request, body: Data(SpotifyAccounts.formEncode(fields).utf8))
        } catch HTTPTransportError.responseTooLarge(_, let limit) {
            return Self.failure(
                .badGateway,
                error: "server_error",
                description: "Spotify's accounts service answered with more than \(limit) bytes."
            )
        } catch {
            return Self.failure(
                .badGateway,
                error: "server_error",
                description: "Spotify's accounts service did not answer."
            )
        }
        let upstreamLimit = configuration.limits.maximumUpstreamBodyBytes
        guard data.count <= upstreamLimit else {
            return Self.failure(
                .badGateway,
                error: "server_error",
                description: "Spotify's accounts service answered with more than \(upstreamLimit) bytes."
            )
        }
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard response.isSuccess else {
            var headers: HTTPHeaders = [
                .contentType: response[headerField: "Content-Type"] ?? "application/json",
                .cacheControl: "no-store",
            ]
            if let retryAfter = response[headerField: "Retry-After"] { headers[HTTPHeader("Retry-After")] = retryAfter }
            return TokenServerOutcome(
                response: FlyingFox.HTTPResponse(
                    statusCode: HTTPStatusCode(response.status, phrase: Self.phrase(for: response.status)),
                    headers: headers,
                    body: data
                ),
                error: object?["error"] as? String ?? "http_\(response.status)"
            )
        }
        guard var object, object["access_token"] is String else {
            return Self.failure(
                .badGateway,
                error: "server_error",
                description: "Spotify's accounts service answered with a body this server cannot read."
            )
        }
        if let refreshToken = object["refresh_token"] as? String {
            do {
                object["refresh_token"] = try sealer.seal(refreshToken)
            } catch {
                return Self.failure(
                    .internalServerError,
                    error: "server_error",
                    description: "The refresh token could not be sealed."
                )
            }
        }
        return TokenServerOutcome(response: Self.json(.ok, object), error: nil)
    }

    // MARK: - Requests

    /// The client's address: the peer, or with ``Configuration/trustsForwardedFor`` the last
    /// `X-Forwarded-For` entry (the one the proxy in front added).
    func clientAddress(of request: FlyingFox.HTTPRequest) -> String {
        if configuration.trustsForwardedFor,
            let forwarded = request.headers[.xForwardedFor]?.split(separator: ",").last?
                .trimmingCharacters(in: .whitespaces),
            !forwarded.isEmpty, forwarded.count <= 45,
            forwarded.utf8.allSatisfy(Set("0123456789abcdefABCDEF:.".utf8).contains)
        {
            return forwarded
        }
        switch request.remoteAddress {
        case .ip4(let address, _), .ip6(let address, _): return address
        case .unix(let path): return AccessLogEntry.printable(path, limit: 64)
        case nil: return "-"
        }
    }

    /// The form fields of the body, read up to the size limit.
    private func readForm(
        of request: FlyingFox.HTTPRequest,
        bodyIsTooLarge: Bool
    ) async -> Result<[String: String], FormFailure> {
        let limit = configuration.limits.maximumBodyBytes
        let tooLarge = FormFailure(
            outcome: {
                var outcome = Self.failure(
                    .payloadTooLarge,
                    error: "request_too_large",
                    description: "The request body is larger than \(limit) bytes."
                )
                // The rest of the body is never read, so the connection cannot carry another request.
                outcome.response.headers[.connection] = "close"
                return outcome
            }()
        )
        if bodyIsTooLarge || request.headers[.contentLength].flatMap(Int.init).map({ $0 > limit }) == true {
            return .failure(tooLarge)
        }
        var body = Data()
        do {
            for try await chunk in request.bodySequence {
                body.append(chunk)
                if body.count > limit { return .failure(tooLarge) }
            }
        } catch {
            return .failure(
                FormFailure(
                    outcome: Self.failure(.badRequest, error: "invalid_request", description: "The body ended early.")
                )
            )
        }
        switch Self.decodeForm(body) {
        case .success(let form): return .success(form)
        case .failure(let problem):
            return .failure(
                FormFailure(outcome: Self.failure(.badRequest, error: "invalid_request", description: problem.text))
            )
        }
    }

    struct FormFailure: Error {
        var outcome: TokenServerOutcome
    }

    struct FormProblem: Error, Equatable {
        var text: String
    }

    /// Decodes `application/x-www-form-urlencoded`: `+` is a space, and a field given twice is an
    /// error (RFC 6749 §3.1).
    static func decodeForm(_ body: Data) -> Result<[String: String], FormProblem> {
        guard let text = String(data: body, encoding: .utf8) else {
            return .failure(FormProblem(text: "The body is not UTF-8 form data."))
        }
        var form: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else {
                return .failure(FormProblem(text: "The body is not valid form data (a bad %-escape)."))
            }
            guard form[name] == nil else {
                return .failure(
                    FormProblem(text: "The form field \(AccessLogEntry.printable(name, limit: 40)) appears twice.")
                )
            }
            form[name] = value
        }
        return .success(form)
    }

    // MARK: - Responses

    static func failure(_ status: HTTPStatusCode, error: String, description: String) -> TokenServerOutcome {
        TokenServerOutcome(response: json(status, ["error": error, "error_description": description]), error: error)
    }

    static func json(_ status: HTTPStatusCode, _ object: [String: Any]) -> FlyingFox.HTTPResponse {
        let body =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return FlyingFox.HTTPResponse(
            statusCode: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store", HTTPHeader("Pragma"): "no-cache"],
            body: body
        )
    }

    private static func phrase(for status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
