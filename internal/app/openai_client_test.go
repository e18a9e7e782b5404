package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/switchyard-gw/switchyard/internal/config"
	"github.com/switchyard-gw/switchyard/internal/store/storetest"
	fakeanthropic "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/anthropic"
	fakegemini "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/gemini"
	fakeopenai "github.com/switchyard-gw/switchyard/internal/testing/fakeupstream/openai"
)

// clientGateway starts a fake OpenAI upstream (also standing in for
// Together) and a gateway in front of it, and returns the official Go
// client pointed at the gateway.
func clientGateway(t *testing.T) (openai.Client, *fakeopenai.Server, *gateway) {
	t.Helper()
	up, g := upstreamGateway(t, fakeopenai.Options{}, nil)
	key, _ := g.newKey(t, "client@example.com")
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0))
	return c, up, g
}

// upstreamGateway starts a fake upstream serving as OpenAI and Together,
// and a gateway in front of it.
func upstreamGateway(t *testing.T, opt fakeopenai.Options, mut func(*config.Config)) (*fakeopenai.Server, *gateway) {
	t.Helper()
	up := fakeopenai.Start(opt)
	t.Cleanup(up.Close)
	ant := fakeanthropic.Start(fakeanthropic.Options{})
	t.Cleanup(ant.Close)
	gem := fakegemini.Start(fakegemini.Options{})
	t.Cleanup(gem.Close)
	g := startWith(t, storetest.SQLiteURL(t), map[string]string{
		"OPENAI_BASE_URL": up.URL, "OPENAI_API_KEY": "test-upstream-key",
		"TOGETHER_BASE_URL": up.URL, "TOGETHER_API_KEY": "test-upstream-key",
		"ANTHROPIC_BASE_URL": ant.URL, "ANTHROPIC_API_KEY": "test-upstream-key",
		"GEMINI_BASE_URL": gem.URL, "GEMINI_API_KEY": fakegemini.DefaultKey,
	}, mut)
	return up, g
}

var weatherParams = shared.FunctionParameters{
	"type":       "object",
	"properties": map[string]any{"location": map[string]any{"type": "string"}},
	"required":   []string{"location"},
}

func TestOfficialGoClient(t *testing.T) {
	client, up, _ := clientGateway(t)
	ctx := context.Background()

	t.Run("chat", func(t *testing.T) {
		r, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:       "gpt-4o-mini",
			Messages:    []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Say hello")},
			Temperature: openai.Float(0.2),
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Object != "chat.completion" || r.Choices[0].Message.Content == "" || r.Choices[0].FinishReason != "stop" || r.Usage.TotalTokens == 0 {
			t.Errorf("response %+v", r)
		}
		if got := up.Last().Header.Get("Authorization"); got != "Bearer test-upstream-key" {
			t.Errorf("upstream saw Authorization %q, want the gateway's own key", got)
		}
	})

	t.Run("meta model on together keeps the client's model ID", func(t *testing.T) {
		r, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "llama-3.3-70b-instruct", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Model != "llama-3.3-70b-instruct" {
			t.Errorf("model %q", r.Model)
		}
		if got := string(up.Last().Body); !contains(got, `"model":"meta-llama/Llama-3.3-70B-Instruct-Turbo"`) {
			t.Errorf("upstream body %s does not carry the host's model ID", got)
		}
	})

	t.Run("stream with usage", func(t *testing.T) {
		s := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model: "gpt-4o-mini", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("stream it")},
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		})
		acc := openai.ChatCompletionAccumulator{}
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if acc.Choices[0].Message.Content == "" || acc.Usage.TotalTokens == 0 || acc.Choices[0].FinishReason != "stop" {
			t.Errorf("accumulated %+v", acc.ChatCompletion)
		}
	})

	t.Run("tool calls streamed", func(t *testing.T) {
		s := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model:    "gpt-4o-mini",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")},
			Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
				Name: "get_weather", Parameters: weatherParams})},
		})
		acc := openai.ChatCompletionAccumulator{}
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		calls := acc.Choices[0].Message.ToolCalls
		if len(calls) != 1 || calls[0].Function.Name != "get_weather" || calls[0].Function.Arguments != `{"location":"Paris"}` {
			t.Errorf("tool calls %+v", calls)
		}
	})

	t.Run("legacy functions on a tools-only host", func(t *testing.T) {
		r, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:    "llama-3.3-70b-instruct",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")},
			//lint:ignore SA1019 legacy functions are part of the gateway's contract
			Functions: []openai.ChatCompletionNewParamsFunction{{Name: "get_weather", Parameters: weatherParams}},
		})
		if err != nil {
			t.Fatal(err)
		}
		//lint:ignore SA1019 legacy functions are part of the gateway's contract
		fc := r.Choices[0].Message.FunctionCall
		if r.Choices[0].FinishReason != "function_call" || fc.Name != "get_weather" || len(r.Choices[0].Message.ToolCalls) != 0 {
			t.Errorf("choice %+v", r.Choices[0])
		}
		if body := string(up.Last().Body); contains(body, `"functions"`) || !contains(body, `"tools"`) {
			t.Errorf("the host got functions: %s", body)
		}
	})

	t.Run("legacy completion", func(t *testing.T) {
		r, err := client.Completions.New(ctx, openai.CompletionNewParams{
			Model:  "gpt-3.5-turbo-instruct",
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Say this is a test")},
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Object != "text_completion" || r.Choices[0].Text == "" {
			t.Errorf("completion %+v", r)
		}
		if !contains(string(up.Last().Body), `"max_tokens":16`) {
			t.Errorf("upstream did not get the default max_tokens 16: %s", up.Last().Body)
		}
	})

	t.Run("legacy completion on a chat model", func(t *testing.T) {
		r, err := client.Completions.New(ctx, openai.CompletionNewParams{
			Model:  "gpt-4o-mini",
			Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"first", "second"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Choices) != 2 || r.Choices[1].Index != 1 || r.Choices[0].Text == "" {
			t.Errorf("choices %+v", r.Choices)
		}
	})

	t.Run("embeddings float and base64", func(t *testing.T) {
		get := func(f openai.EmbeddingNewParamsEncodingFormat) []float64 {
			r, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{
				Model: "text-embedding-3-small", EncodingFormat: f,
				Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"a", "b"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Data) != 2 || r.Data[1].Index != 1 || r.Usage.PromptTokens == 0 {
				t.Fatalf("embeddings %+v", r)
			}
			return r.Data[0].Embedding
		}
		fl, b64 := get(openai.EmbeddingNewParamsEncodingFormatFloat), get(openai.EmbeddingNewParamsEncodingFormatBase64)
		if len(fl) != 1536 || len(b64) != 1536 {
			t.Fatalf("dimensions %d and %d, want 1536", len(fl), len(b64))
		}
		for i := range fl {
			if math.Abs(fl[i]-b64[i]) > 1e-6 {
				t.Fatalf("element %d: float %v, base64 %v", i, fl[i], b64[i])
			}
		}
	})

	t.Run("models", func(t *testing.T) {
		page, err := client.Models.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, m := range page.Data {
			ids[m.ID] = true
		}
		if !ids["gpt-4o-mini"] || !ids["llama-3.3-70b-instruct"] || !ids["claude-opus-5"] || !ids["gemini-3.5-flash"] ||
			ids["gpt-3.5-turbo"] || ids["claude-opus-4-1"] || ids["llama-3.1-8b-instruct"] {
			t.Errorf("listed %v", ids)
		}
		m, err := client.Models.Get(ctx, "gpt-4o-mini")
		if err != nil || m.ID != "gpt-4o-mini" || m.OwnedBy != "openai" || m.Created == 0 {
			t.Errorf("retrieve: %+v %v", m, err)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "gpt-9", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}})
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "model_not_found" || apiErr.Message != "Model not found" {
			t.Errorf("unknown model: %v", err)
		}
		_, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "gpt-4o-mini", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}, Temperature: openai.Float(3)})
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Param != "temperature" || apiErr.Type != "invalid_request_error" {
			t.Errorf("bad temperature: %v", err)
		}
		_, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "gpt-4o-mini", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("fake:error:429")}})
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Type != "rate_limit_error" || apiErr.JSON.Code.Valid() {
			t.Errorf("upstream 429: %v", err)
		}
		bad := openai.NewClient(option.WithBaseURL(apiErr.Request.URL.Scheme+"://"+apiErr.Request.URL.Host+"/v1/"),
			option.WithAPIKey("sk-switchyard-"+"0123456789abcdefghijABCDEFGHIJ12"), option.WithMaxRetries(0))
		_, err = bad.Models.List(ctx)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Code != "invalid_api_key" {
			t.Errorf("bad key: %v", err)
		}
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestSameClientEveryFamily runs the same client code against an OpenAI, a
// Claude, a Gemini and a Llama model: text, streaming, tool calls and
// legacy functions must come back in the same shape.
func TestSameClientEveryFamily(t *testing.T) {
	client, _, _ := clientGateway(t)
	ctx := context.Background()
	tool := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: "get_weather", Parameters: weatherParams})}
	for _, model := range []string{"gpt-4o-mini", "claude-sonnet-4-5", "gemini-2.5-flash", "gemini-3.1-pro-preview", "llama-3.3-70b-instruct"} {
		t.Run(model, func(t *testing.T) {
			r, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model,
				Messages:  []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Say hello")},
				MaxTokens: openai.Int(100)})
			if err != nil {
				t.Fatal(err)
			}
			if r.Model != model || r.Choices[0].Message.Content == "" || r.Choices[0].FinishReason != "stop" || r.Usage.TotalTokens == 0 {
				t.Errorf("chat: %+v", r)
			}

			s := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: model,
				Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("stream it")},
				StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
			acc := openai.ChatCompletionAccumulator{}
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if acc.Choices[0].Message.Content == "" || acc.Choices[0].FinishReason != "stop" || acc.Usage.TotalTokens == 0 {
				t.Errorf("stream: %+v", acc.ChatCompletion)
			}

			r, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model, Tools: tool,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")}})
			if err != nil {
				t.Fatal(err)
			}
			calls := r.Choices[0].Message.ToolCalls
			if r.Choices[0].FinishReason != "tool_calls" || len(calls) == 0 || calls[0].Function.Name != "get_weather" || calls[0].ID == "" {
				t.Fatalf("tool call: %+v", r.Choices[0])
			}
			// The tool round trip: the call and its result go back.
			r2, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model, Tools: tool,
				Messages: []openai.ChatCompletionMessageParamUnion{
					openai.UserMessage("weather in Paris?"),
					r.Choices[0].Message.ToParam(),
					openai.ToolMessage(`{"temp_c":21}`, calls[0].ID),
				}})
			if err != nil {
				t.Fatalf("tool round trip: %v", err)
			}
			if r2.Choices[0].Message.Content == "" {
				t.Errorf("answer after the tool result: %+v", r2.Choices[0])
			}

			st := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: model, Tools: tool,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")}})
			acc = openai.ChatCompletionAccumulator{}
			for st.Next() {
				acc.AddChunk(st.Current())
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			sc := acc.Choices[0].Message.ToolCalls
			if acc.Choices[0].FinishReason != "tool_calls" || len(sc) == 0 || sc[0].Function.Name != "get_weather" || !json.Valid([]byte(sc[0].Function.Arguments)) {
				t.Errorf("streamed tool call: %+v", acc.Choices[0])
			}

			//lint:ignore SA1019 legacy functions are part of the gateway's contract
			fns := []openai.ChatCompletionNewParamsFunction{{Name: "get_weather", Parameters: weatherParams}}
			r, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model, Functions: fns,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")}})
			if err != nil {
				t.Fatal(err)
			}
			//lint:ignore SA1019 legacy functions are part of the gateway's contract
			if fc := r.Choices[0].Message.FunctionCall; r.Choices[0].FinishReason != "function_call" || fc.Name != "get_weather" {
				t.Errorf("legacy function call: %+v", r.Choices[0])
			}
		})
	}
}
