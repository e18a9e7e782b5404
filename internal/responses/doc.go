// Package responses serves OpenAI's Responses API on top of chat
// completions: it validates a POST /v1/responses body (Parse), translates
// it to a chat completions body for upstreams that do not serve the API
// natively (Request.Chat), and turns their chat answers and chunk streams
// back into Response objects and Responses events (Translator).
//
// Request → chat:
//   - instructions become a leading system message; system and developer
//     messages keep their role and place; user parts become text,
//     image_url and file parts (an input_image given by file_id becomes a
//     file part by file_id; input_file by file_url is refused: chat has no
//     such part); assistant output_text parts are joined into content,
//     refusal parts into refusal.
//   - consecutive function_call items become one assistant message with
//     tool_calls, merged into a directly preceding assistant message;
//     function_call_output items become tool messages (input_text parts
//     joined; image or file parts refused).
//   - a reasoning item whose encrypted_content is a gateway envelope of
//     Anthropic thinking blocks gives its blocks to the next assistant
//     message as thinking_blocks (dropped when no assistant turn follows);
//     other reasoning items (OpenAI's encrypted state, bare summaries)
//     are dropped.
//   - tools nest under "function" (strict defaults to true, as the
//     Responses API has it); tool_choice and parallel_tool_calls are sent
//     only with tools (chat refuses them without); text.format becomes
//     response_format, text.verbosity verbosity, max_output_tokens
//     max_completion_tokens, reasoning.effort reasoning_effort; user (else
//     safety_identifier) becomes user.
//   - dropped (echoed in the response only): metadata, store, include,
//     prompt_cache_key, prompt_cache_retention, service_tier, truncation,
//     max_tool_calls, top_logprobs, reasoning.summary, stream_options,
//     message phase and item ids and statuses.
//   - refused: Chat-only fields (unknown_parameter), item_reference,
//     conversation, background, prompt, context_management.
//   - native only: built-in and custom tools, their items and
//     tool_choice forms, files by URL, non-text parts where chat has
//     none. Parse accepts them, for OpenAI's own Responses API runs
//     them; Chat refuses them with a FieldError whose NativeOnly is set,
//     which the gateway gives a model without that API.
//
// Chat → Response: a reasoning item first when the message has
// reasoning_content or thinking_blocks (the text as one summary_text
// part, the blocks sealed in encrypted_content), then a message item,
// then one function_call item per tool call. finish_reason length and
// content_filter make the response incomplete; the service tier is the
// upstream's, else "default". Logprobs and annotations are always [].
//
// Streams follow the event order openai-node's accumulator enforces: one
// item at a time, tool calls that an upstream interleaves kept until the
// open one is done, text arriving after tool calls emitted as a message
// after them.
package responses
