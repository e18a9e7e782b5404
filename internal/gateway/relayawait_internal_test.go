package gateway

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/switchyard-gw/switchyard/internal/provider"
)

// awaitStream is a stream of chunks that notes each Await, and each Next
// as "next".
type awaitStream struct {
	chunks []string
	calls  []string
}

func (s *awaitStream) Await() { s.calls = append(s.calls, "await") }

func (s *awaitStream) Next() ([]byte, error) {
	s.calls = append(s.calls, "next")
	if len(s.chunks) == 0 {
		return nil, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return []byte(c), nil
}

func (s *awaitStream) Usage() provider.Usage { return provider.Usage{} }
func (s *awaitStream) Close() error          { return nil }

// The relay passes Await on to its stream, except while it holds the
// chunk the attempt peeked (waiting then would hold that chunk back until
// the upstream sends the next) and after the end (issue 18).
func TestRelayAwait(t *testing.T) {
	st := &awaitStream{chunks: []string{"b"}}
	r := &relay{Stream: st, aw: st, x: &exchange{g: &Gateway{}}, first: []byte("a"), peeked: true}
	var got []string
	for {
		r.Await()
		c, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, string(c))
	}
	r.Await()
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"await", "next", "await", "next"}, st.calls); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}

}

// awaitStreamer opens an awaitStream of its chunks for each request and
// keeps them, to read their calls.
type awaitStreamer struct {
	chunks  []string
	streams []*awaitStream
}

func (a *awaitStreamer) ChatStream(_ context.Context, _ *provider.Request) (provider.Stream, error) {
	st := &awaitStream{chunks: append([]string(nil), a.chunks...)}
	a.streams = append(a.streams, st)
	return st, nil
}

// A legacy completion streamed through chat streams passes Await on to
// the prompt's chat stream it reads, so the relay's wait is in Await for
// these too (issue 18). Between prompts, when Next would open the next
// prompt's stream, and after the end, there is nothing to wait on.
func TestTextStreamAwait(t *testing.T) {
	up := &awaitStreamer{chunks: []string{`{"id":"chatcmpl-1","created":1,"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`}}
	s := &textStream{ctx: context.Background(), st: up, reqs: []*provider.Request{{}, {}}, model: "m", n: 1}
	aw, ok := any(s).(provider.Awaiter)
	if !ok {
		t.Fatal("textStream is not a provider.Awaiter")
	}
	var got []string
	for {
		aw.Await()
		c, err := s.Next()
		if err != nil {
			break
		}
		got = append(got, gjson.GetBytes(c, "choices.0.text").Str)
	}
	aw.Await()
	if diff := cmp.Diff([]string{"x", "x"}, got); diff != "" {
		t.Errorf("texts mismatch (-want +got):\n%s", diff)
	}
	if len(up.streams) != 2 {
		t.Fatalf("%d chat streams opened, want 2", len(up.streams))
	}
	// Each prompt's stream is opened by Next, which reads its chunk; the
	// Await before the next Next waits on it, and the stream then ends.
	for i, st := range up.streams {
		if diff := cmp.Diff([]string{"next", "await", "next"}, st.calls); diff != "" {
			t.Errorf("prompt %d calls mismatch (-want +got):\n%s", i, diff)
		}
	}
}
