package websub

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// SignatureHeader carries a content distribution's HMAC (§7.1).
const SignatureHeader = "X-Hub-Signature"

// Sign is the X-Hub-Signature value of body under secret: HMAC-SHA256,
// the weakest method §8.3 recommends, which every subscriber accepts.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Errors of Verify.
var (
	ErrNoSignature  = errors.New("no X-Hub-Signature")
	ErrBadSignature = errors.New("X-Hub-Signature does not match")
)

// methods are the HMAC methods of §7.1.1 that Verify accepts. sha1 is
// registered too but refused: §8.3 asks for SHA-256 at least.
var methods = map[string]func() hash.Hash{
	"sha256": sha256.New,
	"sha384": sha512.New384,
	"sha512": sha512.New,
}

// Verify checks an X-Hub-Signature header against body and secret
// (§7.1.2): "method=hex" with method sha256, sha384 or sha512, compared
// in constant time.
func Verify(secret, header string, body []byte) error {
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrNoSignature
	}
	method, sig, ok := strings.Cut(header, "=")
	if !ok {
		return fmt.Errorf("%w: %q is not method=signature", ErrBadSignature, header)
	}
	newHash, ok := methods[strings.ToLower(method)]
	if !ok {
		return fmt.Errorf("%w: method %q refused (sha256, sha384 or sha512)", ErrBadSignature, method)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return fmt.Errorf("%w: signature is not hexadecimal", ErrBadSignature)
	}
	mac := hmac.New(newHash, []byte(secret))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return ErrBadSignature
	}
	return nil
}
