// Package gemini talks to Google's Gemini API (v1beta): it translates
// OpenAI chat and embeddings requests into generateContent,
// streamGenerateContent (alt=sse) and batchEmbedContents calls, and the
// answers back into OpenAI's shapes.
//
// Endpoints are POST {BaseURL}/v1beta/models/{model}:generateContent,
// :streamGenerateContent?alt=sse and :batchEmbedContents, authenticated
// with the x-goog-api-key header. Answers name the model the client asked
// for (provider.Request.Model).
//
// # Messages
//
//   - system and developer messages, wherever they are, become
//     systemInstruction, one text part per message part, in order. A
//     conversation of instructions only is sent as a user turn instead
//     (Gemini needs contents).
//   - user becomes role "user", assistant role "model"; message names are
//     dropped. Consecutive turns of one role are merged (Gemini wants
//     user and model to alternate), except that a turn of function
//     responses is never merged with text, either way.
//   - Empty texts are left out and empty messages skipped: Gemini refuses
//     empty parts. A request with nothing left is refused (400).
//   - image_url: a base64 data URL becomes inlineData {mimeType, data}; an
//     http(s) or gs:// URL becomes fileData {mimeType, fileUri} for Gemini
//     to fetch, with the type guessed from the path's extension (png, jpg,
//     jpeg, gif, webp, heic, heif) or "image/*". Other URLs are refused.
//     detail is dropped. input_audio becomes inlineData audio/wav or
//     audio/mp3; file with file_data becomes inlineData typed by its data
//     URL or its file name (pdf, txt, md, csv, html, xml, json, images);
//     file_id is refused.
//   - assistant tool_calls (or function_call) become functionCall parts
//     {name, args} after the message's text (refusal parts count as
//     text). arguments must be a JSON object ("" means {}); anything else
//     is refused, since Gemini's args is an object.
//   - tool messages (and function messages) become one user turn of
//     functionResponse parts {name, response: {"result": content}} right
//     after the call turn, in the order of the calls. name is the call's,
//     found through tool_call_id (by name for function messages). content
//     (text parts joined by newlines) is parsed as JSON when it is JSON,
//     else sent as a string. Every call must be answered by the messages
//     right after it, and a tool message must answer one of them (as
//     OpenAI requires); a conversation whose first turn is a call is
//     refused, since Gemini wants a user turn before every call turn.
//
// # Tools
//
//   - tools (or functions) become one tools entry of functionDeclarations
//     {name, description, parameters}; custom tools are refused, as are
//     names Gemini does not accept (it wants a letter or underscore
//     first), duplicates and more than 128 functions. strict is dropped.
//   - parameters (JSON Schema) are reduced to Gemini's Schema, an OpenAPI
//     3.0 subset, rather than sent as parametersJsonSchema: local $refs
//     (#/$defs/…, #/definitions/…, any pointer into the schema) are
//     inlined, keywords beside a $ref overriding the target; a recursive
//     $ref is refused (400 naming the tool); remote $refs are refused.
//     allOf members are merged (properties and required united). anyOf and
//     oneOf lose null members to nullable: true; one member left is
//     merged into the node, several stay anyOf (oneOf loses exclusivity),
//     a member allowing anything drops the union. A type list
//     ["string","null"] becomes a nullable string; several types become
//     anyOf. const becomes a one-value enum; enums of numbers or booleans
//     are dropped (Gemini's enums are strings); an enum without a type
//     gets type string. format is kept only for date-time, enum, float,
//     double, int32 and int64. required and propertyOrdering keep only
//     defined properties. A property whose schema is false is left out.
//     Kept: type, nullable, format, title, description, enum, properties,
//     required, items (an object), minItems, maxItems, minProperties,
//     maxProperties, minLength, maxLength, pattern, minimum, maximum,
//     example, anyOf, propertyOrdering. Dropped: additionalProperties,
//     $schema, $id, $comment, $defs, definitions, $anchor, default,
//     examples, const (after conversion), not, if/then/else,
//     patternProperties, unevaluatedProperties, propertyNames,
//     dependentRequired, dependentSchemas, dependencies, prefixItems,
//     items as a list, contains, minContains, maxContains, uniqueItems,
//     multipleOf, exclusiveMinimum, exclusiveMaximum, readOnly,
//     writeOnly, deprecated, contentEncoding, contentMediaType and any
//     other keyword. Parameters without properties are left out (Gemini
//     refuses an object with empty properties). Expansion is bounded
//     (2000 nodes, depth 40).
//   - tool_choice (or function_call): auto → AUTO, none → NONE, required
//     → ANY, a named function → ANY with allowedFunctionNames [name];
//     allowed_tools in required mode → ANY with those names, in auto mode
//     → AUTO with only those functions declared. Without tools there is
//     no toolConfig. parallel_tool_calls false passes on only the first
//     call of each answer (Gemini cannot be told).
//
// # Generation
//
// temperature (0–2) → temperature, top_p → topP, max_completion_tokens
// (else max_tokens) → maxOutputTokens (capped at the catalogue's output
// limit and at 2³¹−1), stop → stopSequences (empty ones dropped; more
// than 5 refused), n → candidateCount (omitted when 1; more than 8
// refused), presence_penalty and frequency_penalty → presencePenalty and
// frequencyPenalty (omitted when 0: some models refuse penalties), seed →
// seed (Gemini's is an int32: the low 32 bits), reasoning_effort →
// thinkingConfig (below), response_format json_object → responseMimeType
// application/json, json_schema → the same plus responseJsonSchema
// (below; name, description and strict are dropped: Gemini always
// constrains). Refused (400 naming the field): logprobs true, audio,
// modalities other than text, web_search_options. Dropped: logit_bias
// (OpenAI token IDs mean nothing to Gemini), top_logprobs, user,
// safety_identifier, prompt_cache_key, metadata, store, service_tier,
// verbosity, prediction, stream_options.
//
// # Structured outputs
//
// The json_schema schema goes as responseJsonSchema, which takes real JSON
// Schema (local $refs and $defs included, so recursive schemas work),
// rather than reduced to responseSchema's OpenAPI subset as function
// parameters are: nothing is inlined and more of the schema survives. Only
// the keywords Gemini documents are kept, at every level: $id, $defs,
// $ref, $anchor, type (a name or a list), format, title, description,
// enum, items, prefixItems, minItems, maxItems, minimum, maximum, anyOf,
// oneOf, properties, additionalProperties, required and propertyOrdering.
// Rewritten: const (a string or number) → a one-value enum; enum keeps
// only its strings and numbers (the answer still fits the client's
// schema); items as a list (draft-07 tuples) → prefixItems; the root's
// definitions → $defs, with #/definitions/… $refs pointing there (a name
// in both is refused); allOf members are merged into the node
// (properties and required united, otherwise the first value wins); a
// property whose schema is false is left out; beside a $ref only
// $-keywords stay (Gemini allows no others), so a description next to a
// $ref is lost. Dropped: $schema, $comment, minLength, maxLength, pattern,
// exclusiveMinimum, exclusiveMaximum, multipleOf, minProperties,
// maxProperties, uniqueItems, contains, not, if/then/else,
// patternProperties, propertyNames, dependentRequired, dependentSchemas,
// unevaluatedProperties, default, examples, readOnly, writeOnly,
// deprecated, nested definitions and any other keyword. A remote $ref, a
// sub-schema that is not an object or a boolean, and schemas beyond 2000
// nodes or 40 levels are refused (400, param
// response_format.json_schema.schema).
//
// # Thinking
//
// reasoning_effort (none, minimal, low, medium, high, xhigh, max; anything
// else is refused with param reasoning_effort) becomes
// generationConfig.thinkingConfig by how the catalogue says the model is
// steered (provider.Request.Reasoning); Pro, Flash-Lite and Flash are told
// apart by the upstream model ID. "budget" (Gemini 2.5) sets
// thinkingBudget: none 0 (Pro 128: Pro cannot stop thinking), minimal 512
// (Pro 128), low 1024, medium 8192, high, xhigh and max 24576 (Pro
// 32768). "level" (Gemini 3) sets thinkingLevel: none and minimal
// "minimal" (Pro "low"), low "low", medium "medium", high, xhigh and max
// "high". Never both. includeThoughts is true for every effort but none.
// For a model the catalogue gives no way of steering (Gemini 2.0, unknown
// models) a valid effort is ignored, none or not: refusing it would break
// fallbacks from thinking models, and such a model either does not think
// or cannot be told how much. No effort sends no thinkingConfig. An
// assistant message's reasoning_content and thinking_blocks (the chat
// extension for other upstreams' reasoning) are not sent: Gemini's
// thoughts cannot be handed back.
//
// # Thought signatures
//
// Gemini 3 refuses a history whose function call turns lost the
// thoughtSignature of their first call, and OpenAI clients only echo the
// tool-call ID. So the ID carries it: call_<12 random [A-Z2-7]>, then, for
// a call with a signature, _ts_ and the signature's bytes in unpadded
// URL-safe base64. The ID keeps to [A-Za-z0-9_-] and is 21 characters
// plus 4/3 of the signature's size (a 300-byte signature makes a 421
// character ID). When the history comes back the signature is put back
// on its functionCall part, in standard base64. A signature that is not
// canonical base64 is not carried. For Gemini 3 and later models, the
// first call of a call turn that has no signature (another model's
// history, a rewritten ID, a legacy function_call, which has no ID) gets
// the value Google documents for that case,
// "skip_thought_signature_validator". Signatures on text parts are not
// kept.
//
// # Answers
//
//   - Each candidate is a choice with the candidate's index. Text parts are
//     joined into content; the text of thought parts (thought: true,
//     sent when includeThoughts asked for them) is joined into
//     reasoning_content, which is left out when there is none. content is
//     null when the choice has only calls and "" when it has nothing. functionCall parts become
//     tool_calls {id (above), type function, function {name, arguments:
//     the args as compact JSON, {} when absent}}, or one function_call for
//     clients that used functions.
//   - finishReason STOP becomes tool_calls (function_call for functions
//     clients) when the choice made a call (in a stream, in any event of
//     it), else stop; MAX_TOKENS → length; SAFETY, RECITATION, BLOCKLIST,
//     PROHIBITED_CONTENT, SPII, LANGUAGE and the IMAGE_ variants →
//     content_filter; anything else → stop.
//   - A prompt Gemini blocks (promptFeedback.blockReason, no candidates)
//     is answered 200 with one choice: content "", refusal naming the
//     reason, finish_reason content_filter. An answer with neither
//     candidates nor a block reason is an upstream failure.
//   - usage: prompt_tokens = promptTokenCount + toolUsePromptTokenCount,
//     completion_tokens = candidatesTokenCount + thoughtsTokenCount
//     (reasoning_tokens and provider.Usage.ReasoningTokens =
//     thoughtsTokenCount), total_tokens =
//     totalTokenCount, cached_tokens = cachedContentTokenCount. Without
//     usageMetadata the tokenizer counts, marked as an estimate.
//   - The ID is chatcmpl- + Gemini's responseId.
//
// # Streams
//
// Each Gemini event is translated as it arrives: a role chunk first
// ({"role":"assistant","content":"","refusal":null}, or content null
// carrying the first tool call when the choice starts with one), a
// reasoning_content chunk per thought part, a content chunk per text part,
// one chunk per function call carrying its whole
// arguments at the next tool-call index of its choice (the index runs
// across events), and a finish chunk with delta {} when Gemini sends the
// finishReason. When the client asked for usage every chunk carries
// "usage":null and a choices:[] chunk with the usage (the last
// usageMetadata) follows the finish chunks; otherwise there is no usage
// key. An {"error":…} event, an event that is not a JSON object, or the
// body ending before every choice finished is a *provider.Error.
//
// # Embeddings
//
// input (a string or strings; token IDs are refused with param input,
// empty strings too) is sent to :batchEmbedContents in batches of 100,
// each request {model: models/<id>, content: {parts: [{text}]},
// outputDimensionality: dimensions}; no taskType. Vectors come back as
// float arrays (the gateway encodes base64); when dimensions was given
// they are scaled to unit length, as OpenAI's are (Gemini normalizes only
// full-size vectors). Gemini reports no usage: prompt_tokens is counted
// with the tokenizer and marked as an estimate.
//
// # Errors
//
// Gemini's {"error":{code,message,status,details}} is classified: 400
// with ErrorInfo reason API_KEY_INVALID, 401 and 403 → KindAuth (the
// gateway's credentials); 400 FAILED_PRECONDITION (billing, region) →
// KindUnavailable; other 400s → KindBadRequest (context_length_exceeded
// when the message says the input token count exceeds the maximum); 404 →
// KindNotFound; 429 → KindRateLimit with RetryAfter from
// RetryInfo.retryDelay, else the Retry-After header; 500 →
// KindUnavailable; 503 → KindOverloaded; 504 → KindTimeout. Transport
// failures go through provider.FromTransport; Options.Timeout bounds a
// whole call, a stream included; Options.FirstByteTimeout a stream's wait
// for its headers.
package gemini
