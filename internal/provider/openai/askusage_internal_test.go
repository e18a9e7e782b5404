package openai

import "testing"

// TestAskUsage checks that every stream request asks for the usage chunk,
// the client's other stream options kept.
func TestAskUsage(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"no stream_options", `{"model":"m","stream":true}`, `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`},
		{"trailing white space", "{\"model\":\"m\"}\n \t", `{"model":"m","stream_options":{"include_usage":true}}`},
		{"nested braces", `{"m":{"a":{}},"x":"}"}`, `{"m":{"a":{}},"x":"}","stream_options":{"include_usage":true}}`},
		{"already asked", `{"stream_options":{"include_usage":true}}`, `{"stream_options":{"include_usage":true}}`},
		{"asked not to", `{"stream_options":{"include_usage":false}}`, `{"stream_options":{"include_usage":true}}`},
		{"other options kept", `{"stream_options":{"x":1}}`, `{"stream_options":{"x":1,"include_usage":true}}`},
		{"empty object", `{}`, `{"stream_options":{"include_usage":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.body)
			got, err := askUsage(in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("askUsage(%s) = %s, want %s", tt.body, got, tt.want)
			}
			if string(in) != tt.body {
				t.Errorf("askUsage changed its input to %s", in)
			}
		})
	}
}
