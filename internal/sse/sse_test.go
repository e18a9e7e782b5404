package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/switchyard-gw/switchyard/internal/fixture"
)

// ev is an Event with its data copied, for comparison.
type ev struct {
	Event, Data string
}

// readAll parses rd until the first error; a clean io.EOF is returned as nil.
func readAll(rd io.Reader, max int) ([]ev, error) {
	return readEvents(NewReader(rd, max))
}

func readEvents(r *Reader) ([]ev, error) { return readEventsAwaiting(r, false) }

// readEventsAwaiting is readEvents, calling Await before each Next when
// await.
func readEventsAwaiting(r *Reader, await bool) ([]ev, error) {
	var got []ev
	for {
		if await {
			r.Await()
		}
		e, err := r.Next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, ev{e.Event, string(e.Data)})
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), c.n)])
}

// readers wrap an input in the ways a network body may deliver it.
var readers = []struct {
	name string
	wrap func([]byte) io.Reader
}{
	{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"one_byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
	{"data_err", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	{"chunks_of_7", func(b []byte) io.Reader { return chunkReader{bytes.NewReader(b), 7} }},
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"empty", "", nil},
		{"lf", "data: a\n\ndata: b\n\n", []ev{{"", "a"}, {"", "b"}}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []ev{{"", "a"}, {"", "b"}}},
		{"cr", "data: a\r\rdata: b\r\r", []ev{{"", "a"}, {"", "b"}}},
		{"mixed", "data: a\r\n\ndata: b\r\r\ndata: c\n\r", []ev{{"", "a"}, {"", "b"}, {"", "c"}}},
		{"multi_line_data", "data: a\ndata: b\ndata: c\n\n", []ev{{"", "a\nb\nc"}}},
		{"empty_data_line_inside", "data: a\ndata:\ndata: b\n\n", []ev{{"", "a\n\nb"}}},
		{"comments", ": keep-alive\n\n:\n\ndata: a\n: between\ndata: b\n\n", []ev{{"", "a\nb"}}},
		{"data_without_colon", "data\n\n", []ev{{"", ""}}},
		{"two_data_without_colon", "data\ndata\n\n", []ev{{"", "\n"}}},
		{"no_space_after_colon", "data:a\n\n", []ev{{"", "a"}}},
		{"two_spaces_keep_one", "data:  a\n\n", []ev{{"", " a"}}},
		{"trailing_space_kept", "data: a \n\n", []ev{{"", "a "}}},
		{"colon_in_value", "data: {\"a\":\"b: c\"}\n\n", []ev{{"", `{"a":"b: c"}`}}},
		{"tab_is_not_space", "data:\ta\n\n", []ev{{"", "\ta"}}},
		{
			"anthropic_event_names",
			"event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
				"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
				"event: future_thing\ndata: {}\n\n",
			[]ev{
				{"message_start", `{"type":"message_start"}`},
				{"ping", `{"type": "ping"}`},
				{"future_thing", "{}"},
			},
		},
		{"name_without_data", "event: ping\n\n", []ev{{"ping", ""}}},
		{"empty_name_alone", "event:\n\nevent\n\n", nil},
		{"last_name_wins", "event: a\ndata: x\nevent: b\n\n", []ev{{"b", "x"}}},
		{"name_resets", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{"a", "1"}, {"", "2"}}},
		{"id_retry_ignored", "id: 7\nretry: 100\ndata: a\n\nid: 8\n\nretry: 5\n\n", []ev{{"", "a"}}},
		{"unknown_fields_ignored", "foo: bar\nx\ndata: a\n\n", []ev{{"", "a"}}},
		{"field_names_case_sensitive", "Data: a\nEVENT: b\n\n", nil},
		{"gemini_bare_error_line_ignored", "{\"error\": {\"code\": 500}}\n\n", nil},
		{"blank_lines_before", "\n\r\n\r\ndata: a\n\n", []ev{{"", "a"}}},
		{"missing_final_blank_line", "data: a\n\ndata: b", []ev{{"", "a"}, {"", "b"}}},
		{"missing_final_blank_line_lf", "event: x\ndata: b\n", []ev{{"x", "b"}}},
		{"missing_final_blank_line_cr", "data: b\r", []ev{{"", "b"}}},
		{"missing_final_blank_line_crlf", "data: b\r\n", []ev{{"", "b"}}},
		{"final_comment_only", "data: a\n\n: bye", []ev{{"", "a"}}},
		{"bom", "\xEF\xBB\xBFdata: a\n\n", []ev{{"", "a"}}},
		{"bom_only_first_line", "data: a\n\n\xEF\xBB\xBFdata: b\n\n", []ev{{"", "a"}}},
		{"bom_then_blank", "\xEF\xBB\xBF\ndata: a\n\n", []ev{{"", "a"}}},
		{"done_not_special", "data: [DONE]\n\ndata: after\n\n", []ev{{"", "[DONE]"}, {"", "after"}}},
		{"utf8_and_nul", "data: héllo\x00\n\n", []ev{{"", "héllo\x00"}}},
	}
	for _, tt := range tests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				got, err := readAll(rd.wrap([]byte(tt.in)), 0)
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestReaderBareJSON: with AcceptBareJSON, a block that starts with "{"
// where an event would start is an event, on one line or pretty-printed
// over several, and everything else reads as without it.
func TestReaderBareJSON(t *testing.T) {
	pretty := "{\n  \"error\": {\n    \"code\": 503,\n    \"status\": \"UNAVAILABLE\"\n  }\n}"
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"one_line", "data: {\"a\":1}\n\n{\"error\": {\"code\": 500}}\n\n", []ev{{"", `{"a":1}`}, {"", `{"error": {"code": 500}}`}}},
		{"pretty", "data: {\"a\":1}\r\n\r\n" + strings.ReplaceAll(pretty, "\n", "\r\n") + "\r\n\r\n", []ev{{"", `{"a":1}`}, {"", pretty}}},
		{"pretty_at_the_end", "data: x\n\n" + pretty + "\n", []ev{{"", "x"}, {"", pretty}}},
		{"lines_in_the_block_are_not_fields", "{\ndata: x\n}\n\ndata: y\n\n", []ev{{"", "{\ndata: x\n}"}, {"", "y"}}},
		{"inside_an_event_it_is_a_field", "data: x\n{\"error\": 1}\n\n", []ev{{"", "x"}}},
		{"first_line", "{}\n\ndata: a\n\n", []ev{{"", "{}"}, {"", "a"}}},
		{"data_events_unchanged", "event: e\ndata: a\ndata: b\n\n", []ev{{"e", "a\nb"}}},
	}
	for _, tt := range tests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				r := NewReader(rd.wrap([]byte(tt.in)), 0)
				r.AcceptBareJSON()
				got, err := readEvents(r)
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
	r := NewReader(strings.NewReader("{\n"+strings.Repeat("x", 60)+"\n}\n\n"), 40)
	r.AcceptBareJSON()
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a bare block over the limit: %v, want ErrTooLarge", err)
	}
}

// TestLineEndings checks that one stream gives the same events whatever its
// line ends.
func TestLineEndings(t *testing.T) {
	lines := []string{
		"event: message_start", `data: {"a":1}`, "",
		": comment", "data: x", "data:", "data: y", "", "",
		"event: ping", "",
		"data: z", "",
	}
	want := []ev{{"message_start", `{"a":1}`}, {"", "x\n\ny"}, {"ping", ""}, {"", "z"}}
	// Never "\r" then an "\n" ending of an empty line: that would be one "\r\n".
	mixed := []string{"\r\n", "\n", "\r", "\r", "\r\n", "\n"}
	tests := []struct {
		name string
		end  func(i int) string
	}{
		{"lf", func(int) string { return "\n" }},
		{"crlf", func(int) string { return "\r\n" }},
		{"cr", func(int) string { return "\r" }},
		{"mixed", func(i int) string { return mixed[i%len(mixed)] }},
	}
	for _, tt := range tests {
		var b strings.Builder
		for i, l := range lines {
			b.WriteString(l + tt.end(i))
		}
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				got, err := readAll(rd.wrap([]byte(b.String())), 0)
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReaderLimit(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // longer than the read buffer
	tests := []struct {
		name    string
		in      string
		max     int
		want    []ev
		wantErr error
	}{
		{"exactly_max", "data: 0123456789\n\n", 10, []ev{{"", "0123456789"}}, nil},
		{"exactly_max_no_space", "data:0123456789\n\n", 10, []ev{{"", "0123456789"}}, nil},
		{"one_over", "data: 0123456789a\n\n", 10, nil, ErrTooLarge},
		{"joined_lines_over", "data: 01234\ndata: 56789\n\n", 10, nil, ErrTooLarge},
		{"joined_lines_fit", "data: 0123\ndata: 5678\n\n", 10, []ev{{"", "0123\n5678"}}, nil},
		{"events_before_kept", "data: a\n\ndata: 0123456789a\n\ndata: b\n\n", 10, []ev{{"", "a"}}, ErrTooLarge},
		{"long_comment", ": " + strings.Repeat("c", 100) + "\n\n", 10, nil, ErrTooLarge},
		{"long_name", "event: " + strings.Repeat("e", 11) + "\n\n", 10, nil, ErrTooLarge},
		{"over_unterminated", "data: 0123456789a", 10, nil, ErrTooLarge},
		{"over_buffer_size", "data: " + big + "\n\n", 100 << 10, nil, ErrTooLarge},
		{"over_buffer_size_fits", "data: " + big + "\n\n", 200 << 10, []ev{{"", big}}, nil},
	}
	for _, tt := range tests {
		for _, rd := range readers[:3] {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				got, err := readAll(rd.wrap([]byte(tt.in)), tt.max)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReaderLargeLine(t *testing.T) {
	data := bytes.Repeat([]byte(`{"x":"0123456789"}`), 5<<20/18+1) // > 5 MiB
	in := append(append([]byte("data: "), data...), "\r\n\r\ndata: next\r\n\r\n"...)
	for _, rd := range []struct {
		name string
		r    io.Reader
	}{
		{"whole", bytes.NewReader(in)},
		{"chunks_of_1000", chunkReader{bytes.NewReader(in), 1000}},
		{"half", iotest.HalfReader(bytes.NewReader(in))},
	} {
		t.Run(rd.name, func(t *testing.T) {
			r := NewReader(rd.r, 0)
			e, err := r.Next()
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if !bytes.Equal(e.Data, data) {
				t.Fatalf("Data has %d bytes, want %d bytes of the input", len(e.Data), len(data))
			}
			if e, err = r.Next(); err != nil || string(e.Data) != "next" {
				t.Fatalf("second Next = %q, %v; want \"next\", nil", e.Data, err)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("third Next error = %v, want io.EOF", err)
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: partial"), iotest.ErrReader(boom)), 0)
	var got []ev
	var errs []error
	for range 4 {
		e, err := r.Next()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, ev{e.Event, string(e.Data)})
	}
	if diff := cmp.Diff([]ev{{"", "a"}}, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	for _, err := range errs {
		if err != boom {
			t.Errorf("error = %v, want %v every time", err, boom)
		}
	}
}

func TestNewReaderDefaultMax(t *testing.T) {
	for _, max := range []int{0, -1} {
		if got := NewReader(strings.NewReader(""), max).max; got != 32<<20 {
			t.Errorf("NewReader(_, %d).max = %d, want %d", max, got, 32<<20)
		}
	}
}

// fixtureDir holds copies of the team's wire-format fixtures
// (reference/fixtures) that the tests read, so that they always run and
// see only what they cover (issue 13).
const fixtureDir = "testdata"

func TestFixtures(t *testing.T) {
	const (
		msg  = `{"type":"message_start","message":{"id":"msg_`
		gem  = `{"candidates": [{"content": {"parts": [{`
		stop = `{"type":"message_stop"}`
	)
	tests := []struct {
		file                  string
		n                     int
		firstEvent, lastEvent string
		first, last           string // prefixes of the first and last Data
	}{
		{"anthropic/messages_stream_error_overloaded.sse", 4, "message_start", "error", msg + "01Bd5qK3nR8sT2vW4xY6zA1c", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{"anthropic/messages_stream_max_tokens_new_usage_shape.sse", 6, "message_start", "message_stop", msg + "01QC4g3HwBThD4BaNtBckFDJ", stop},
		{"anthropic/messages_stream_text.sse", 8, "message_start", "message_stop", msg + "01XFDUDYJgAACzvnptvVoYEL", stop},
		{"anthropic/messages_stream_tool_use.sse", 18, "message_start", "message_stop", msg + "01Aq9w938a90dw8q", stop},
		{"gemini/stream_function_call_same_chunk.sse", 1, "", "", gem + `"functionCall": {"name": "get_weather","args": {"location": "Paris, FR"}}},{"functionCall"`, gem + `"functionCall"`},
		{"gemini/stream_function_call_split_finish.sse", 2, "", "", gem + `"functionCall": {"name": "get_weather"`, gem + `"text": ""}],"role": "model"},"finishReason": "STOP"`},
		{"gemini/stream_text.sse", 3, "", "", gem + `"text": "Hello"}]`, gem + `"text": " you today?"}]`},
		{"gemini/stream_text_lf_variant.sse", 2, "", "", gem + `"text": "Hi"}]`, gem + `"text": "!"}]`},
		{"llama-hosts/groq_stream_tail_x_groq_usage.sse", 3, "", "", `{"id":"chatcmpl-e7f8e220-656c-4455-a132-dacfc1370798","object":"chat.completion.chunk"`, "[DONE]"},
		{"openai/chat_stream_legacy_function_call.sse", 5, "", "", `{"id":"chatcmpl-C3kU1xLw8pNa5cT3qV7bH2mJkD9sE","object":"chat.completion.chunk"`, "[DONE]"},
		{"openai/chat_stream_midstream_error.sse", 3, "", "", `{"id":"chatcmpl-C3kR2bW7p8yQe1fM0aZt9LxVnHs4D","object":"chat.completion.chunk"`, `{"error":{"message":"The upstream provider is overloaded. Please retry."`},
		{"openai/chat_stream_n2.sse", 9, "", "", `{"id":"chatcmpl-C3kV0pR4tY6uI8oP2aS5dF7gH9jK1","object":"chat.completion.chunk"`, "[DONE]"},
		{"openai/chat_stream_text_include_usage.sse", 8, "", "", `{"id":"chatcmpl-C3kR2bW7p8yQe1fM0aZt9LxVnHs4D","object":"chat.completion.chunk"`, "[DONE]"},
		{"openai/chat_stream_text_no_usage.sse", 5, "", "", `{"id":"chatcmpl-C3kR2bW7p8yQe1fM0aZt9LxVnHs4D","object":"chat.completion.chunk"`, "[DONE]"},
		{"openai/chat_stream_tool_calls_include_usage.sse", 11, "", "", `{"id":"chatcmpl-C3kT9aQ2mZ7xYw4vB1nE8sRfLpK0u","object":"chat.completion.chunk"`, "[DONE]"},
		{"openai/completions_stream.sse", 8, "", "", `{"id":"cmpl-7iA7iJjj8V2zOkCGvWF2hAkDWBQZe","object":"text_completion"`, "[DONE]"},
		{"openai/completions_stream_include_usage.sse", 6, "", "", `{"id":"cmpl-7iA7iJjj8V2zOkCGvWF2hAkDWBQZe","object":"text_completion"`, "[DONE]"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(fixtureDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(bytes.NewReader(in), 0)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if len(got) != tt.n {
				t.Fatalf("got %d events, want %d", len(got), tt.n)
			}
			first, last := got[0], got[len(got)-1]
			if first.Event != tt.firstEvent || !strings.HasPrefix(first.Data, tt.first) {
				t.Errorf("first event = %q %.80q, want %q %.80q…", first.Event, first.Data, tt.firstEvent, tt.first)
			}
			if last.Event != tt.lastEvent || !strings.HasPrefix(last.Data, tt.last) {
				t.Errorf("last event = %q %.80q, want %q %.80q…", last.Event, last.Data, tt.lastEvent, tt.last)
			}
			for i, e := range got { // whole payloads: each is JSON, or exactly [DONE]
				if e.Data != "[DONE]" && !json.Valid([]byte(e.Data)) {
					t.Errorf("event %d: Data is not JSON: %.80q", i, e.Data)
				}
			}
			checkVariants(t, in, got)
		})
	}
	for _, f := range fixture.Glob(t, filepath.Join(fixtureDir, "*", "*.sse")) {
		rel, _ := filepath.Rel(fixtureDir, f)
		if !covered[filepath.ToSlash(rel)] {
			t.Errorf("fixture %s has no test case", rel)
		}
	}
}

// checkVariants checks that in, rewritten with each kind of line end and read
// in pieces of any size, still gives the events want.
func checkVariants(t *testing.T, in []byte, want []ev) {
	t.Helper()
	lf := bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))
	for _, end := range []string{"\n", "\r\n", "\r"} {
		variant := bytes.ReplaceAll(lf, []byte("\n"), []byte(end))
		for _, rd := range readers {
			got, err := readAll(rd.wrap(variant), 0)
			if err != nil {
				t.Fatalf("%q endings, %s reader: error: %v", end, rd.name, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%q endings, %s reader: events mismatch (-want +got):\n%s", end, rd.name, diff)
			}
		}
	}
}

func TestReaderClose(t *testing.T) {
	r := NewReader(strings.NewReader("data: a\n\ndata: b\n\n"), 0)
	if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("Next = %q, %v", ev.Data, err)
	}
	r.Close()
	r.Close() // twice is fine
	if _, err := r.Next(); err != ErrClosed {
		t.Errorf("Next after Close = %v, want ErrClosed", err)
	}
}

// Issue 18: a Reader lives as long as its stream, so its buffer counts in
// the memory per open stream; longer lines are assembled in Reader.long.
func TestReaderBufferFitsStreamBudget(t *testing.T) {
	r := NewReader(strings.NewReader(""), 0)
	if got := r.br.Size(); got > 1<<10 {
		t.Errorf("read buffer of %d bytes, want at most 1 KiB", got)
	}
}

// perRead gives one of its parts per Read, as an upstream's body does
// when each event arrives on its own.
type perRead [][]byte

func (p *perRead) Read(b []byte) (int, error) {
	if len(*p) == 0 {
		return 0, io.EOF
	}
	n := copy(b, (*p)[0])
	if (*p)[0] = (*p)[0][n:]; len((*p)[0]) == 0 {
		*p = (*p)[1:]
	}
	return n, nil
}

// Issue 18: a stream whose reads each bring an event keeps the small read
// buffer (memory per open stream); one whose reads fill it gets the big
// one, so that what one read of the network brought is parsed, and
// flushed to the client, at once rather than a KiB at a time. The events
// read across the change are whole.
func TestReaderBufferGrows(t *testing.T) {
	stream := openAIStream(20)
	parts := bytes.SplitAfter(stream, []byte("\n\n"))
	var want []ev
	for _, p := range parts {
		if d, ok := bytes.CutPrefix(p, []byte("data: ")); ok {
			want = append(want, ev{"", string(bytes.TrimSuffix(d, []byte("\n\n")))})
		}
	}
	tests := []struct {
		name  string
		src   func() io.Reader
		await bool // Await before each Next
		size  int  // of the buffer after the first events
	}{
		{"an event per read", func() io.Reader { p := slices.Clone(parts); return (*perRead)(&p) }, false, bufSize},
		{"reads that fill the buffer", func() io.Reader { return bytes.NewReader(stream) }, false, bigBufSize},
		// Issue 18: Await, which reads for Next, grows the buffer as
		// Next would.
		{"an event per read, through Await", func() io.Reader { p := slices.Clone(parts); return (*perRead)(&p) }, true, bufSize},
		{"reads that fill the buffer, through Await", func() io.Reader { return bytes.NewReader(stream) }, true, bigBufSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.src(), 0)
			var got []ev
			for range 10 {
				if tt.await {
					r.Await()
				}
				e, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev{e.Event, string(e.Data)})
			}
			if size := r.br.Size(); size != tt.size {
				t.Errorf("read buffer of %d bytes after 10 events, want %d", size, tt.size)
			}
			rest, err := readEventsAwaiting(r, tt.await)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, append(got, rest...)); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A stream that ends in the middle of a line, without its line end or
// blank line, while the big buffer takes over, still gives its last
// event whole.
func TestReaderEndsAcrossGrowth(t *testing.T) {
	for _, n := range []int{bufSize - 100, bufSize + 100, 2 * bufSize} {
		data := strings.Repeat("x", n)
		in := "data: a\n\ndata: " + data
		checkVariants(t, []byte(in), []ev{{"", "a"}, {"", data}})
	}
}

// Lines about as long as the read buffer, or a few times it, end where a
// read or the buffer ends, with each kind of line end: each still gives
// its event whole.
func TestReaderLinesAroundBufferSize(t *testing.T) {
	var in bytes.Buffer
	var want []ev
	for _, n := range []int{
		bufSize - 8, bufSize - 7, bufSize - 6, bufSize - 5, bufSize, 2*bufSize - 6, 2*bufSize - 5, 3*bufSize + 1,
		bigBufSize - 8, bigBufSize - 7, bigBufSize - 6, bigBufSize - 5, bigBufSize, 2*bigBufSize - 5, 3*bigBufSize + 1,
	} {
		data := strings.Repeat(string(rune('a'+n%26)), n)
		in.WriteString("event: e\ndata: " + data + "\n\n")
		want = append(want, ev{"e", data})
	}
	checkVariants(t, in.Bytes(), want)
}

// countingReads counts the reads of a stream given per read.
type countingReads struct {
	perRead
	n int
}

func (c *countingReads) Read(b []byte) (int, error) {
	c.n++
	return c.perRead.Read(b)
}

// Await reads when no whole line is held, so that Next then reads only
// to finish an event whose line came whole: a read that brought an event
// and the start of the next leaves the wait for the rest to Await, not
// Next (issue 18: a wait in Next is deep, and the writer's first flush in
// it runs on a goroutine of its own). The "\n" of a "\r\n" split across
// reads is no line: Await reads on past it. For each Next, which of Await
// ("A") and Next ("N") read the stream.
func TestAwaitReadsWithoutLine(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reads []string
		want  []string
	}{
		{"an event a read", []string{"data: 1\n\n", "data: 2\n\n"}, []string{"A", "A", "A"}},
		{"two events in a read", []string{"data: 1\n\ndata: 2\n\n", "data: 3\n\n"}, []string{"A", "", "A", "A"}},
		{"an event and the start of one", []string{"data: 1\n\ndata: ", "2\n\n"}, []string{"A", "A", "A"}},
		{"an event and a line of one", []string{"data: 1\n\ndata: 2\n", "\n"}, []string{"A", "N", "A"}},
		{"CR line ends", []string{"data: 1\r\rdata: 2\r", "\r"}, []string{"A", "N", "A"}},
		{"CRLF split after an event", []string{"data: 1\r\r", "\n", "data: 2\n\n"}, []string{"A", "A", "A"}},
		{"CRLF split before a line's start", []string{"data: 1\r\r", "\ndata: ", "2\n\n"}, []string{"A", "A", "A"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &countingReads{}
			for _, r := range tt.reads {
				src.perRead = append(src.perRead, []byte(r))
			}
			rd := NewReader(src, 0)
			defer rd.Close()
			var got []string
			for {
				reads := src.n
				rd.Await()
				awaited := src.n
				_, err := rd.Next()
				who := ""
				if awaited > reads {
					who += "A"
				}
				if src.n > awaited {
					who += "N"
				}
				got = append(got, who)
				if err != nil {
					break
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reads mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Await does not read when the stream gave its last event together with
// its end: Next then returns io.EOF, or the error, without reading.
func TestAwaitDataWithEnd(t *testing.T) {
	boom := errors.New("boom")
	for _, end := range []error{io.EOF, boom} {
		t.Run(end.Error(), func(t *testing.T) {
			src := &script{steps: []step{{data: "data: 1\n\n", err: end}}}
			rd := NewReader(src, 0)
			defer rd.Close()
			if _, err := rd.Next(); err != nil {
				t.Fatalf("Next: %v", err)
			}
			reads := src.reads
			rd.Await()
			if _, err := rd.Next(); err != end {
				t.Errorf("Next: %v, want %v", err, end)
			}
			if src.reads != reads {
				t.Errorf("Await and Next read the stream %d times, want none", src.reads-reads)
			}
		})
	}
}
