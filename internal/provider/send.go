package provider

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// send sends req as u.Client.Do would. With the client the adapters make
// (no cookie jar, no timeout of its own) and no credentials in the URL,
// it hands req to the transport itself, as httputil.ReverseProxy does:
// Client.Do copies a request's headers (for redirects) and its URL (for
// cookies) on every call (issue 18). Its failures are the *url.Error the
// client returns. An answer that the client would follow to another URL
// (a redirect with a Location) is asked for again through the client,
// which follows it: the upstream, which did not serve the request, sees
// it twice.
func (u *Upstream) send(req *http.Request) (*http.Response, error) {
	c := u.Client
	if c.Jar != nil || c.Timeout > 0 || req.URL.User != nil {
		return c.Do(req)
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, err := rt.RoundTrip(req)
	switch {
	case err != nil:
		if re, ok := err.(tls.RecordHeaderError); ok && string(re.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch // as the client says
		}
		return nil, &url.Error{Op: req.Method[:1] + strings.ToLower(req.Method[1:]), URL: req.URL.String(), Err: err}
	case resp == nil:
		return nil, fmt.Errorf("http: RoundTripper implementation (%T) returned a nil *Response with a nil error", rt)
	case resp.Body == nil:
		resp.Body = http.NoBody
	}
	if !followed(resp) || req.GetBody == nil {
		return resp, nil
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, MaxErrorBody)) // the connection is reused
	resp.Body.Close()
	if req.Body, err = req.GetBody(); err != nil {
		return nil, err
	}
	return c.Do(req)
}

// followed reports whether http.Client follows resp to another URL.
func followed(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
}
