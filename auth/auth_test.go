package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAuthorized(t *testing.T) {
	formProof := func(r *http.Request) bool { return r.Header.Get("X-Proof") == "yes" }
	for _, tc := range []struct {
		name, token, remote, header, proof string
		want                               bool
	}{
		{"loopback without token", "", "127.0.0.1:1234", "", "", true},
		{"ipv6 loopback", "", "[::1]:1234", "", "", true},
		{"mapped loopback", "", "[::ffff:127.0.0.1]:1234", "", "", true},
		{"remote without token", "", "192.0.2.1:1234", "", "", false},
		{"forwarded does not count", "", "192.0.2.1:1234", "", "", false},
		{"remote with the token", "s3cret", "192.0.2.1:1234", "Bearer s3cret", "", true},
		{"token with spaces", "s3cret", "192.0.2.1:1234", "Bearer  s3cret ", "", true},
		{"wrong token", "s3cret", "127.0.0.1:1", "Bearer s3cre", "", false},
		{"loopback needs the token once one is set", "s3cret", "127.0.0.1:1", "", "", false},
		{"another proof", "s3cret", "192.0.2.1:1234", "", "yes", true},
		{"basic is not bearer", "s3cret", "192.0.2.1:1234", "Basic s3cret", "", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.RemoteAddr = tc.remote
		r.Header.Set("X-Forwarded-For", "127.0.0.1")
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		if tc.proof != "" {
			r.Header.Set("X-Proof", tc.proof)
		}
		if got := Authorized(r, tc.token, formProof); got != tc.want {
			t.Errorf("%s: Authorized = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Matches("", "") != true || Matches("a", "") || HasBearer(httptest.NewRequest("GET", "/", nil), "") {
		t.Error("Matches or HasBearer disagree with their documentation")
	}
}
