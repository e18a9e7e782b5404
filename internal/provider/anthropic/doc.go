// Package anthropic talks to Anthropic's Messages API, translating OpenAI
// chat completions (the gateway's wire format) both ways.
//
// # Request (OpenAI chat completion → POST {BaseURL}/v1/messages)
//
// Headers: x-api-key, anthropic-version: 2023-06-01, content-type
// application/json; accept is text/event-stream for streams. The body is
// the client's validated request; the translation reads it with gjson and
// never edits it.
//
//   - model: Request.UpstreamModel. The answer names Request.Model.
//   - system and developer messages, wherever they are, become the
//     top-level system: a string for one text, text blocks for several,
//     in order.
//   - Consecutive messages of one role are merged into one turn, so roles
//     alternate; tool and function results count as user. A conversation
//     that starts with the assistant (or has only system messages) gets a
//     first user turn "(conversation start)".
//   - Content strings and parts become blocks: text (empty or blank text is
//     skipped: Anthropic rejects it); image_url with a base64 data URL →
//     an image with a base64 source (JPEG, PNG, GIF, WebP; image/jpg is
//     read as image/jpeg; other types are refused); an http(s) URL → an
//     image with a url source; file with file_data (a PDF, base64 or data
//     URL) → a document. input_audio, file_id and non-PDF files are
//     refused. A message that ends up with no blocks is dropped; the name
//     field is dropped.
//   - An assistant message's thinking_blocks (the chat extension's echo of
//     Anthropic's thinking: thinking blocks with their signature,
//     redacted_thinking blocks with their data) open that assistant turn,
//     in order, each string sent exactly as the client's JSON has it. A
//     block whose signature (or data) is empty or a gateway envelope
//     (another upstream's reasoning) is dropped; so are all of them when
//     thinking is off for the request (Anthropic ignores them in earlier
//     turns and refuses them in the last assistant turn) and a message
//     with nothing but thinking. Other block types are refused.
//     reasoning_content is never sent.
//   - A final assistant message is a prefill: trailing whitespace is
//     trimmed from its last text block (Anthropic refuses it).
//   - Assistant tool_calls and function_call → tool_use blocks after the
//     message's text. Ids are kept when they match ^[a-zA-Z0-9_-]+$ (64
//     bytes at most); others are rewritten deterministically (other bytes
//     → "_", cut to 40 bytes, plus "_" and a hash of the original). An id
//     an earlier turn already used (clients that number calls per turn)
//     gets "_<message index>" appended. A legacy function_call has no id:
//     it gets "call_fn<message index>". Tool names in the history are
//     made valid the same way.
//   - arguments: a JSON object is sent as the input; "" (or blank) as {};
//     anything else (invalid JSON, arrays, numbers) as
//     {"arguments": "<raw string>"}, so the history keeps what the model
//     said.
//   - tool messages → tool_result blocks answering the call with that
//     tool_call_id in the latest assistant turn; function messages answer
//     that turn's latest unanswered call of that name. All results of one
//     assistant turn go in the single next user message, before its text.
//     A result that answers no call of the preceding assistant turn, a
//     second result for a call, and a call left without a result are
//     refused, as OpenAI refuses them. Empty results omit content.
//   - tools (or functions) → tools [{name, description, input_schema}];
//     input_schema is the parameters, {"type":"object","properties":{}}
//     when absent, "type":"object" added when missing; names must match
//     ^[a-zA-Z0-9_-]{1,64}$ and be unique; custom tools are refused. When
//     the history holds tool calls but the request offers no tools, the
//     tools it used are declared with {"type":"object"} schemas and
//     tool_choice none (Anthropic refuses tool blocks without tools).
//   - tool_choice / function_call: auto → {"type":"auto"}, none → none,
//     required → any, a named function → {"type":"tool","name"},
//     allowed_tools → the listed tools only, with auto or any; custom is
//     refused. With tools, tool_choice is always sent.
//     parallel_tool_calls false → disable_parallel_tool_use true; always so
//     for legacy functions (function_call holds one call).
//   - max_tokens: max_completion_tokens, else max_tokens, else
//     Request.MaxOutputTokens, else 4096; a value above
//     Request.MaxOutputTokens (when known) is lowered to it.
//   - reasoning_effort (none, minimal, low, medium, high, xhigh, max; other
//     values are refused) by Request.Reasoning. "budget" (Claude 3.7 to
//     4.5): none sends no thinking; otherwise thinking {type enabled,
//     budget_tokens}: minimal and low 1024, medium 4096, high 16384, xhigh
//     and max 32000; max_tokens becomes the budget plus the answer's
//     max_tokens (below), at most Request.MaxOutputTokens; when that
//     leaves max_tokens at or below the budget, the budget is halved, and
//     a budget under 1024 is refused (param reasoning_effort). "adaptive"
//     (Claude 4.6 and later): none → thinking {type disabled}; otherwise
//     thinking {type adaptive} and output_config.effort = the effort
//     (minimal → low). A model without thinking ("" or another kind)
//     ignores none and minimal, which it already satisfies, and refuses
//     the others (code unsupported_parameter): silently answering without
//     the asked-for reasoning would hide the misrouting. While thinking
//     is on, temperature is dropped (Anthropic allows only its default;
//     top_k is never sent), top_p is sent when given, raised to at least
//     0.95, and a tool choice that forces a call (required, a named
//     function, allowed_tools required, a named function_call) is refused
//     with param tool_choice (or function_call).
//   - temperature: clamped to Anthropic's 0–1 (0–1 means the same on both
//     sides, both default to 1; 1–2 has no equivalent). top_p is sent only
//     when temperature is absent: recent models refuse both.
//   - stop (string or array) → stop_sequences, leaving out empty and
//     whitespace-only sequences, which Anthropic refuses.
//   - user (else safety_identifier) → metadata.user_id.
//   - response_format json_schema with an object schema, when
//     Request.StructuredOutputs (the catalogue's structured_outputs:
//     Claude Haiku, Sonnet and Opus 4.5, and every Claude 4.6 and later),
//     → output_config.format {type json_schema, schema}, next to any
//     output_config.effort; name and strict are dropped (Anthropic's
//     format is always strict). The schema goes as the client wrote it:
//     keywords Anthropic does not support are not stripped. Otherwise
//     (Claude 4.1 and earlier), json_schema and json_object add a system
//     instruction (the last system text) asking for one JSON object only;
//     json_schema includes the schema. This is best effort: nothing
//     enforces it. text is the default.
//   - Refused (KindBadRequest, Param set, code unsupported_parameter): n >
//     1, logprobs true, audio output (audio, modalities with "audio").
//   - Dropped silently: logit_bias, top_logprobs, seed, presence_penalty,
//     frequency_penalty, service_tier, store, metadata, prompt_cache_key,
//     verbosity, prediction, web_search_options,
//     stream_options (usage is always known upstream).
//
// # Response (message → chat.completion)
//
// id "chatcmpl-" + the message id; created is now; model is
// Request.Model. Text blocks are joined into message.content, which is
// null when the answer is only tool calls; tool_use blocks become
// tool_calls {id, type function, function {name, arguments: the input as
// compact JSON}}, or for a client that used functions the first becomes
// function_call. Thinking and redacted_thinking blocks go, in order and as
// received, into message.thinking_blocks (for the client to send back),
// and the thinking texts, joined by a blank line ("\n\n"), into
// message.reasoning_content; both are absent when there was no thinking.
// refusal and logprobs are
// null, annotations []. finish_reason: end_turn, stop_sequence,
// pause_turn and unknown → stop; max_tokens and
// model_context_window_exceeded → length; tool_use → tool_calls (or
// function_call); refusal → content_filter. usage: prompt_tokens =
// input_tokens + cache_read_input_tokens + cache_creation_input_tokens,
// completion_tokens = output_tokens, total_tokens their sum,
// prompt_tokens_details.cached_tokens = cache_read_input_tokens,
// completion_tokens_details.reasoning_tokens =
// output_tokens_details.thinking_tokens, only when Anthropic sends it; the
// same in provider.Usage (ReasoningTokens).
//
// # Streams (events → chat.completion.chunk)
//
// Each event is translated when it arrives. The role chunk waits for the
// first content block: {"role":"assistant","content":"","refusal":null}
// for text, role with content null and the first tool call's head when
// the answer starts with a call, or {"role":"assistant","content":null,
// "reasoning_content":"","refusal":null} when it starts by thinking.
// thinking_delta → delta.reasoning_content (the first piece of a later
// thinking block starts with "\n\n", as in a whole answer); at a signed
// thinking block's content_block_stop, one delta {"thinking_blocks":
// [{"type":"thinking","thinking":<the block's whole text>,"signature":<its
// signature_delta>}]}; a redacted_thinking block → {"thinking_blocks":
// [{"type":"redacted_thinking","data":…}]} when it starts. text_delta →
// delta.content; a tool_use
// block start → tool_calls [{index, id, type, function {name, arguments
// ""}}] where index counts tool calls (not Anthropic blocks, which count
// text too); input_json_delta → arguments fragments (function_call
// fragments for legacy clients; a legacy answer's later calls are
// dropped). message_delta → the finish chunk (delta {}); message_stop →
// with Request.IncludeUsage, a chunk with choices [] and usage, every
// chunk then carrying "usage":null; no usage key otherwise; the usage has
// completion_tokens_details.reasoning_tokens when Anthropic told the
// thinking tokens. Usage comes
// from message_start and message_delta, whose output_tokens is cumulative
// (counts present replace earlier ones). ping, content_block_stop of
// other blocks, unknown events and fields are ignored. An error event
// is returned by Next as a *provider.Error whose Kind follows the error
// type (overloaded_error → KindOverloaded, rate_limit_error →
// KindRateLimit, api_error → KindUnavailable, timeout_error →
// KindTimeout, ...). A body that ends before message_delta is an error,
// never a made-up stop.
//
// # Errors
//
// A non-200 answer is a *provider.Error by status (provider.FromStatus):
// 400 and 413 → KindBadRequest with Anthropic's message ("prompt is too
// long" gets code context_length_exceeded and param messages; 413 code
// request_too_large), 401/403 → KindAuth, 402 (billing) → KindAuth, 404
// → KindNotFound, 429 → KindRateLimit with retry-after, 500 →
// KindUnavailable, 504 → KindTimeout, 529 or an overloaded_error body →
// KindOverloaded with retry-after when given. Transport failures go
// through provider.FromTransport. Options.Timeout bounds a whole call, a
// stream included; Options.FirstByteTimeout a stream's wait for its
// response headers.
package anthropic
