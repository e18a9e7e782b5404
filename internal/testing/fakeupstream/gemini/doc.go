// Package fakegemini serves a strict, deterministic fake of Google's Gemini
// API (v1beta generateContent, streamGenerateContent, embedContent and
// batchEmbedContents) for the gateway's tests.
//
// It refuses what the real API refuses, so adapter bugs surface in tests:
//
//   - no x-goog-api-key (or ?key=): 403 PERMISSION_DENIED, as Google
//     answers unregistered callers; a wrong key: 400 INVALID_ARGUMENT with
//     ErrorInfo reason API_KEY_INVALID (fixture error_400_api_key_invalid);
//   - unknown models (the google rows of the reference models.csv are
//     known, and any "gemini-fake-*", an embedding model when its name
//     says "embedding"), and a model on the wrong kind of method: 404;
//   - unknown fields anywhere (camelCase names only), contents missing,
//     roles other than user and model, empty parts, empty text, a part
//     with no or two data fields, bad base64, function calls outside
//     model turns and responses outside user turns;
//   - in functionDeclarations[].parameters, any keyword outside Gemini's
//     Schema (additionalProperties, $ref, $defs, oneOf, allOf, const, …),
//     bad types, empty properties, required names that are not
//     properties, top-level parameters that are not an object with
//     properties; invalid or duplicate function names; more than 128;
//   - a function call turn not right after a user turn (fixture
//     error_400_function_turn_order), a call turn not followed by a
//     function response turn, a response turn that is not right after a
//     call turn, mixes in other parts, or does not answer every call;
//   - for Gemini 3 and later models, a call turn whose first call has no
//     thoughtSignature (fixture error_400_missing_thought_signature), or
//     one the fake did not issue (ErrUnknownSignature) other than the
//     documented skip_thought_signature_validator;
//   - toolConfig without functions, allowedFunctionNames outside ANY or
//     VALIDATED or naming undeclared functions; generationConfig values
//     out of range (temperature 0–2, topP 0–1, candidateCount 1–8, at most
//     5 stopSequences, …), a response schema without responseMimeType
//     application/json; in responseJsonSchema, a keyword outside those
//     Google documents (inbound-apis.md §7.3), a keyword other than
//     $-keywords beside $ref, enum values other than strings and numbers
//     (stricter than Google may be: it documents these, the fake enforces
//     them so that adapters that pass others on are caught);
//   - thinkingConfig on a model that does not think (before 2.5), both
//     thinkingBudget and thinkingLevel, a budget outside the model's range
//     (-1 is dynamic; 2.5 Pro 128–32768, 2.5 Flash 0–24576, 2.5
//     Flash-Lite 0 or 512–24576, Gemini 3 0–32768, Pro from 128),
//     thinkingLevel before Gemini 3, or one the model lacks (minimal on
//     Pro; any case is taken);
//   - streamGenerateContent without alt=sse; embedding requests whose
//     model is not the URL's, more than 100 in a batch, too many
//     dimensions, a title without task type RETRIEVAL_DOCUMENT.
//
// Answers are deterministic. After function responses the model says what
// they returned; with functions offered (mode not NONE) it calls the
// first allowed or declared function with arguments made up from its
// parameters, and a Gemini 3 model signs the first call; otherwise it
// echoes the last user text ("You said: …"), cut by maxOutputTokens
// (MAX_TOKENS) and stopSequences, as JSON when responseMimeType asks: a
// value fitting the response schema (made by jsonschema.ExampleJSON;
// responseSchema's upper-case types read as JSON Schema's), or
// {"answer": text} without one. Models from 2.5 on think unless a
// thinkingBudget of 0 stops them, reporting thoughtsTokenCount 7; with
// includeThoughts every candidate starts with a part flagged thought
// ("**Reading the request**\nThe user wrote: …"), which streams send
// first, in two events.
// Streams frame events with "\r\n\r\n" like Google (Options.LF for
// "\n\n"), text a word per event; Gemini 3 sends each call in its own
// event and then an empty text with STOP (fixture
// stream_function_call_split_finish). Embeddings are seeded by the text;
// only full-size vectors are unit length, as with Gemini.
//
// Magic words in the last user text (the first input for embeddings):
// fake:error:400|403|404|429|500|503|504 (429 carries RetryInfo 27s),
// fake:badkey (API_KEY_INVALID), fake:midstream-error (streams: two
// events then an error object; otherwise 500), fake:midstream-bare-error
// (the same error pretty-printed on lines of its own, without "data:"), fake:hang (nothing until
// the client leaves), fake:blocked (promptFeedback.blockReason and no
// candidates), fake:parallel (two function calls).
package fakegemini
