import Testing
import VibesHTTP

struct RedactionTests {
    @Test(arguments: [
        (
            #"{"access_token": "BQ-abc.def", "token_type": "Bearer"}"#,
            #"{"access_token": "<redacted>", "token_type": "Bearer"}"#
        ),
        (#"{"refresh_token":"AQ-x\"y","expires_in":3600}"#, #"{"refresh_token":"<redacted>","expires_in":3600}"#),
        (
            "grant_type=refresh_token&refresh_token=AQ-123&client_id=abc",
            "grant_type=refresh_token&refresh_token=<redacted>&client_id=abc"
        ),
        ("http://127.0.0.1:8977/callback?code=AQC-1&state=s", "http://127.0.0.1:8977/callback?code=<redacted>&state=s"),
        ("code_verifier=v-v-v client_secret=shh", "code_verifier=<redacted> client_secret=<redacted>"),
        ("Authorization: Bearer BQ-abc", "Authorization: Bearer <redacted>"),
        ("Authorization: Basic aWQ6c2VjcmV0", "Authorization: Basic <redacted>"),
        ("error_code=7 zipcode=1", "error_code=7 zipcode=1"),
        (#"{"access_token": "BQ-cut-off"#, #"{"access_token": "<redacted>""#),
    ])
    func secretsAreRedacted(input: String, expected: String) {
        #expect(Redaction.redact(input) == expected)
    }
}
