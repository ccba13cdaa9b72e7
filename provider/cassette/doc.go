// Package cassette is the record and replay seam for model calls: two
// http.RoundTrippers that sit under a provider's HTTP client. A Recorder
// forwards each request to the real transport and saves the exchange; a
// Replayer serves saved exchanges and never touches the network.
//
// # Key
//
// An interaction is keyed by the lowercase hex SHA-256 of the RFC 8785
// (JCS) canonical form of
//
//	{"body": <request body>, "method": "POST", "path": "/v1/chat/completions"}
//
// For a chat-completions call the body holds the model, the parameters
// (tools, tool_choice, temperature, ...) and the messages, so the key is a
// hash of (model, parameters, messages) that ignores key order and
// whitespace. The host and port are not part of the key (a cassette
// recorded against one server replays against another), nor is the query
// string or any header (either may carry credentials). A request body that
// is not JSON cannot be keyed and is refused before it is sent.
//
// # File format (version 1)
//
// Each interaction is one file, <key>.json, in the cassette directory:
//
//	{
//	  "version": 1,
//	  "key": "<64 lowercase hex digits, equal to the file name>",
//	  "request": {
//	    "method": "POST",
//	    "path": "/v1/chat/completions",
//	    "body": { ...the request body, indented for review... }
//	  },
//	  "response": {
//	    "status": 200,
//	    "headers": {"Content-Type": "application/json"},
//	    "body": { ...the response body, when it is JSON... }
//	  }
//	}
//
// A response body that is not valid UTF-8 JSON is stored as
// "body_base64" instead of "body"; an empty body has neither. Only the
// Content-Type response header is kept. No request header is ever stored,
// so an Authorization header or API key cannot reach a cassette.
//
// Cassettes are data files a person may edit or commit, so ReadFile checks
// them strictly: unknown or duplicate fields, a wrong version, a key that
// does not match the file name or does not hash the stored request, a
// status outside 100-599, a header other than Content-Type, both body forms
// at once, or trailing data are all errors naming the file (ErrMalformed).
//
// A replayed JSON body is equivalent JSON, not byte-identical to what the
// server sent (it is re-indented). A Recorder returns the response as a
// Replayer would serve it, so a recorded run and its replay see the same
// bytes.
package cassette
