import Foundation
import Testing
import VibesServer
import VibesTestSupport

/// Host, Origin, bearer token, CSRF token and size limits, checked before any route.
struct RequestGateTests {
    @Test(arguments: ["evil.example", "rebind.attacker.test", "127.0.0.1.nip.io"])
    func foreignHostIsRefused(host: String) async throws {
        try await ServerHarness.withServer { harness async throws in
            let answer = try await harness.send(
                method: "GET",
                path: "/api/library",
                headers: ["Host: \(host):\(harness.port)"]
            )
            #expect(answer.status == 403)
            #expect(answer.errorCode == "forbidden_host")
        }
    }

    @Test func hostNeedsThePort() async throws {
        try await ServerHarness.withServer { harness async throws in
            #expect(try await harness.send(method: "GET", path: "/", headers: ["Host: localhost"]).status == 403)
            #expect(try await harness.send(method: "GET", path: "/", headers: ["Host: localhost:1"]).status == 403)
            #expect(try await harness.send(method: "GET", path: "/", headers: []).status == 403)
            #expect(
                try await harness.send(method: "GET", path: "/", headers: ["Host: localhost:\(harness.port)"]).status
                    == 200
            )
            #expect(
                try await harness.send(method: "GET", path: "/", headers: ["Host: [::1]:\(harness.port)"]).status == 200
            )
        }
    }

    @Test func foreignOriginIsRefused() async throws {
        try await ServerHarness.withServer { harness async throws in
            let foreign = try await harness.get("/api/library", headers: ["Origin: http://evil.example"])
            #expect(foreign.status == 403)
            #expect(foreign.errorCode == "forbidden_origin")
            #expect(try await harness.get("/api/library", headers: ["Origin: null"]).status == 403)
            let own = try await harness.get("/api/library", headers: ["Origin: http://127.0.0.1:\(harness.port)"])
            #expect(own.status == 200)
        }
    }

    @Test func stateChangingRequestNeedsTheCSRFToken() async throws {
        try await ServerHarness.withServer { harness async throws in
            let host = "Host: 127.0.0.1:\(harness.port)"
            let missing = try await harness.send(
                method: "POST",
                path: "/api/playlists",
                headers: [host, "Content-Length: 0"]
            )
            #expect(missing.status == 403)
            #expect(missing.errorCode == "csrf_token_missing")
            let wrong = try await harness.send(
                method: "POST",
                path: "/api/playlists",
                headers: [host, "Content-Length: 0", "X-CSRF-Token: 0123"]
            )
            #expect(wrong.status == 403)
            let token = try #require(try await harness.get("/api/session").json()["csrf_token"] as? String)
            #expect(token.count == 64)
            // With the token the request reaches routing, where /api/library answers GET only.
            let allowed = try await harness.send(
                method: "POST",
                path: "/api/library",
                headers: [host, "Content-Length: 0", "X-CSRF-Token: \(token)"]
            )
            #expect(allowed.status == 405)
            #expect(allowed.errorCode == "method_not_allowed")
        }
    }

    @Test func oversizedQueryAndBodyAreRefused() async throws {
        try await ServerHarness.withServer { harness async throws in
            let long = try await harness.get("/api/tracks?q=" + String(repeating: "a", count: 9_000))
            #expect(long.status == 414)
            #expect(long.errorCode == "uri_too_long")
            // Only the head is sent: the answer must come without the body being read.
            let large = try await harness.send(
                method: "POST",
                path: "/api/playlists",
                headers: ["Host: 127.0.0.1:\(harness.port)", "Content-Length: 100000"]
            )
            #expect(large.status == 413)
            #expect(large.errorCode == "body_too_large")
        }
    }

    @Test func everyInterfaceNeedsTheBearerToken() async throws {
        let token = "test-token-\(UInt64.random(in: 0...UInt64.max))"
        let configuration = VibesServer.Configuration(bindAddress: "0.0.0.0", port: 0, bearerToken: token)
        try await ServerHarness.withServer(configuration: configuration) { harness async throws in
            let missing = try await harness.get("/api/library")
            #expect(missing.status == 401)
            #expect(missing.errorCode == "unauthorized")
            #expect(missing.headers["www-authenticate"] == "Bearer")
            #expect(!String(decoding: missing.body, as: UTF8.self).contains(token))
            #expect(try await harness.get("/api/library", headers: ["Authorization: Bearer wrong"]).status == 401)
            #expect(try await harness.get("/api/library", headers: ["Authorization: Bearer \(token)"]).status == 200)
            // On every interface an address names the server, but a DNS name other than localhost does not.
            let byAddress = try await harness.send(
                method: "GET",
                path: "/api/library",
                headers: ["Host: 192.0.2.10:\(harness.port)", "Authorization: Bearer \(token)"]
            )
            #expect(byAddress.status == 200)
            let byName = try await harness.send(
                method: "GET",
                path: "/api/library",
                headers: ["Host: evil.example:\(harness.port)", "Authorization: Bearer \(token)"]
            )
            #expect(byName.status == 403)
        }
    }

    @Test func configurationDescriptionHidesTheToken() {
        let configuration = VibesServer.Configuration(bearerToken: "s3cret-value")
        #expect(!configuration.description.contains("s3cret-value"))
    }
}
