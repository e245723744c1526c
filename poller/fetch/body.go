package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// readBody reads the body, decoding its Content-Encoding, and fails with
// KindTooLarge as soon as more than max bytes come out: a gzip bomb costs
// no more memory than an honest body of max bytes.
func readBody(resp *http.Response, max int64) ([]byte, error) {
	if resp.ContentLength > max && contentEncoding(resp) == "" {
		return nil, tooLarge(max)
	}
	r, err := decoder(resp)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf []byte
	if n := resp.ContentLength; n > 0 && n <= max {
		buf = make([]byte, 0, n+1) // room for the byte that would be one too many
	}
	w := &capped{buf: buf, max: max}
	if _, err := io.Copy(w, r); err != nil {
		return nil, err
	}
	return w.buf, nil
}

// capped collects up to max bytes and fails on the next one.
type capped struct {
	buf []byte
	max int64
}

func (c *capped) Write(p []byte) (int, error) {
	if int64(len(c.buf))+int64(len(p)) > c.max {
		return 0, tooLarge(c.max)
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func tooLarge(max int64) *Error {
	return &Error{Kind: KindTooLarge, Err: fmt.Errorf("body exceeds %d bytes", max)}
}

func contentEncoding(resp *http.Response) string {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	if enc == "identity" {
		return ""
	}
	return enc
}

// decoder returns a reader of the decoded body. Content-Encoding is the
// server's choice within what Accept-Encoding offered (gzip, deflate);
// "deflate" is zlib-wrapped by the standard but sent raw by some servers,
// so both are read.
func decoder(resp *http.Response) (io.ReadCloser, error) {
	switch enc := contentEncoding(resp); enc {
	case "":
		return resp.Body, nil
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, encodingError(enc, err)
		}
		return readCloser{checked{z, enc}, resp.Body}, nil
	case "deflate":
		br := bufio.NewReader(resp.Body)
		if head, err := br.Peek(2); err == nil && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 && head[0]&0x0f == 8 {
			z, err := zlib.NewReader(br)
			if err != nil {
				return nil, encodingError(enc, err)
			}
			return readCloser{checked{z, enc}, resp.Body}, nil
		}
		return readCloser{checked{flate.NewReader(br), enc}, resp.Body}, nil
	default:
		return nil, encodingError(enc, fmt.Errorf("not offered in Accept-Encoding"))
	}
}

func encodingError(enc string, err error) *Error {
	return &Error{Kind: KindEncoding, Err: fmt.Errorf("Content-Encoding %s: %w", enc, err)}
}

// checked turns a decompressor's format errors into KindEncoding errors;
// transport errors (timeouts) pass through as they are.
type checked struct {
	r   io.Reader
	enc string
}

func (c checked) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	switch err {
	case nil, io.EOF:
		return n, err
	case gzip.ErrChecksum, gzip.ErrHeader, zlib.ErrChecksum, zlib.ErrHeader, io.ErrUnexpectedEOF:
		return n, encodingError(c.enc, err)
	}
	if _, ok := err.(flate.CorruptInputError); ok {
		return n, encodingError(c.enc, err)
	}
	return n, err
}

// readCloser reads from a decoder and closes the body beneath it.
type readCloser struct {
	io.Reader
	body io.Closer
}

func (r readCloser) Close() error { return r.body.Close() }
