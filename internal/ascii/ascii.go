// Package ascii holds the one ASCII-only case rule that HTML tag names,
// charset labels and the stores' SQL lower() share: A-Z become a-z and every
// other byte stays as it is. strings.ToLower is not that rule: it also
// lowers non-ASCII letters and rewrites invalid UTF-8, changing lengths and
// offsets.
package ascii

// Lower returns s with the ASCII capitals A-Z replaced by a-z and every other
// byte unchanged. It allocates only when s holds a capital.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if isUpper(b[j]) {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
