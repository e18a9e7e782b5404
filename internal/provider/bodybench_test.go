package provider

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// chunks is an endless body that gives one event a read, at once.
type chunks struct{}

func (chunks) Read(p []byte) (int, error) {
	return copy(p, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"), nil
}
func (chunks) Close() error { return nil }

// bodyTripper answers every request with chunks.
type bodyTripper struct{}

func (bodyTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: chunks{}, Request: r}, nil
}

// BenchmarkStreamBodyRead reads a stream's body under its timeouts, the
// idle one included: the cost of the bounds for each upstream read
// (issue 18).
func BenchmarkStreamBodyRead(b *testing.B) {
	u := &Upstream{Name: "up", Client: &http.Client{Transport: bodyTripper{}}, Header: http.Header{},
		Timeout: time.Hour, FirstByteTimeout: time.Minute, IdleTimeout: time.Minute}
	resp, cancel, err := u.Open(context.Background(), "http://up.invalid/", []byte("{}"), "")
	if err != nil {
		b.Fatal(err)
	}
	defer cancel()
	defer resp.Body.Close()
	p := make([]byte, 1024)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := resp.Body.Read(p); err != nil && err != io.EOF {
			b.Fatal(err)
		}
	}
}
