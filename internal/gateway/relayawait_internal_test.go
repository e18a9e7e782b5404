package gateway

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

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
