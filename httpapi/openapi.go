package httpapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// OpenAPIVersion is the OpenAPI revision of GET /openapi.json. Its schema
// dialect is JSON Schema 2020-12, the registry's own, so each tool's input
// schema is embedded as it is, not translated.
const OpenAPIVersion = "3.1.0"

// APIVersion is the version of the HTTP API the document describes.
const APIVersion = "v1"

// ToolPath is the path of POST /v1/tools/{name} for one tool.
func ToolPath(name string) string { return "/v1/tools/" + name }

// OpenAPI returns the OpenAPI 3.1 document of the HTTP API, generated from
// the tool registry: one path per offered tool, whose request body schema
// is that tool's input schema. Each call returns a fresh document.
func OpenAPI(reg *tool.Registry) map[string]any {
	paths := map[string]any{
		"/v1/ask": map[string]any{"post": operation("ask",
			"Answer one question",
			"Runs the whole grounded pipeline for one natural-language question. A served question is 200 whatever its outcome.",
			tool.AskSchema(), answerResponses(false))},
		"/v1/tools": map[string]any{"get": map[string]any{
			"operationId": "list_tools",
			"summary":     "List the tools",
			"description": "Every tool of the closed menu plus ask, with its input schema and annotations. Served while the dataset loads.",
			"tags":        []any{"tools"},
			"responses": map[string]any{
				"200": jsonResponse("The tools.", map[string]any{"type": "array", "items": ref("Tool")}),
			},
		}},
		"/healthz": map[string]any{"get": map[string]any{
			"operationId": "health",
			"summary":     "Readiness",
			"tags":        []any{"meta"},
			"responses": map[string]any{
				"200": jsonResponse("The dataset is loaded.", ref("Health")),
				"503": jsonResponse("The dataset is still loading.", ref("Health")),
			},
		}},
		"/v1/ground": map[string]any{"post": map[string]any{
			"operationId": "check_grounding",
			"summary":     "Check a text's numerals against a ledger",
			"description": tool.CheckGroundingDescription + " Reads no data; served while the dataset loads.",
			"tags":        []any{"grounding"},
			"requestBody": map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": tool.CheckGroundingSchema()}}},
			"responses": map[string]any{
				"200": jsonResponse("The grounding report.", map[string]any{"type": "object"}),
				"400": jsonResponse("A malformed request.", ref("Error")),
				"413": jsonResponse("The body is too large.", ref("Error")),
				"415": unsupportedMediaType(),
			},
		}},
		"/v1/results/{id}/rows": map[string]any{"get": rowsOperation()},
		"/openapi.json": map[string]any{"get": map[string]any{
			"operationId": "openapi",
			"summary":     "This document",
			"tags":        []any{"meta"},
			"responses": map[string]any{
				"200": jsonResponse("The OpenAPI document, generated from the tool registry.", map[string]any{"type": "object"}),
			},
		}},
	}
	for _, e := range reg.Offered() {
		paths[ToolPath(e.Name)] = map[string]any{"post": operation("call_"+e.Name, "Call "+e.Name, e.Description,
			e.InputSchema, answerResponses(true))}
	}
	return map[string]any{
		"openapi": OpenAPIVersion,
		"info": map[string]any{
			"title":   "provenant",
			"version": APIVersion,
			"description": "Grounded answers over " + reg.About() + ". Every value is computed by a tool from the closed menu, " +
				"carries the events behind it, and is re-derived independently before it is returned. A call the wall " +
				"refuses (wrong parameters, an undeclared id, query syntax) is a 200 answer with outcome rejected; a " +
				"question no tool covers is a 200 answer with outcome abstained. Request schemas are advisory: the server " +
				"judges every value itself. Error messages are fixed text that never repeats the request.",
		},
		"tags": []any{
			map[string]any{"name": "tools", "description": "The closed tool menu, and ask."},
			map[string]any{"name": "meta", "description": "Readiness and this document."},
		},
		"paths": paths,
		"components": map[string]any{
			"schemas":   schemas(reg),
			"responses": responses(),
		},
	}
}

// docs are the tool list and the OpenAPI document, encoded once: the
// registry does not change while the process runs.
type docs struct {
	tools, openAPI func() ([]byte, error)
}

func newDocs(reg *tool.Registry, memory, approvals bool) *docs {
	return &docs{
		tools: sync.OnceValues(func() ([]byte, error) { return json.Marshal(Tools(reg)) }),
		openAPI: sync.OnceValues(func() ([]byte, error) {
			doc := OpenAPI(reg)
			if memory {
				addMemoryPaths(doc)
			}
			if approvals {
				addApprovalPaths(doc)
			}
			return json.Marshal(doc)
		}),
	}
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	b, err := s.docs.openAPI()
	if err != nil {
		writeError(w, http.StatusInternalServerError, CodeInternal, "internal error")
		return
	}
	writeJSON(w, http.StatusOK, json.RawMessage(b))
}

// rowsOperation is GET /v1/results/{id}/rows, which the answer's
// provenance names: without it in the document a client generated from
// it could not page a large provenance.
func rowsOperation() map[string]any {
	return map[string]any{
		"operationId": "result_rows",
		"summary":     "Page the event ids behind a result",
		"description": "One page of the sorted event ids behind a result whose answer listed its provenance in part (event_count past the listed ids), " +
			"for the caller's scope, while the data version is the one the answer was read from. An engine that does not page provenance knows no result.",
		"tags": []any{"tools"},
		"parameters": []any{
			map[string]any{"name": "id", "in": "path", "required": true, "description": "A result id of the answer (result_ids).",
				"schema": map[string]any{"type": "string"}},
			map[string]any{"name": "page", "in": "query", "required": false, "description": "The page, from 1 (default 1), given once.",
				"schema": map[string]any{"type": "integer", "minimum": 1, "default": 1}},
		},
		"responses": map[string]any{
			"200": jsonResponse("The page.", ref("RowsPage")),
			"400": jsonResponse("The page is not a whole number from 1, is given twice, or the query is malformed (code bad_page).", ref("Error")),
			"404": jsonResponse("No result by that id lists its provenance in part for this caller (code unknown_result), or the page is past the last (code no_such_page).", ref("Error")),
			"410": jsonResponse("The data changed since the result was computed; ask again (code data_changed).", ref("Error")),
			"500": jsonResponse("Our failure (code internal).", ref("Error")),
			"503": jsonResponse("The dataset is still loading (code loading, with Retry-After).", ref("Error")),
			"504": jsonResponse("The request's deadline passed (code timeout).", ref("Error")),
		},
	}
}

func operation(id, summary, description string, body map[string]any, responses map[string]any) map[string]any {
	return map[string]any{
		"operationId": id,
		"summary":     summary,
		"description": description,
		"tags":        []any{"tools"},
		"requestBody": map[string]any{
			"required": true,
			"content":  map[string]any{"application/json": map[string]any{"schema": body}},
		},
		"responses": responses,
	}
}

// answerResponses are the responses of an operation that returns the
// answer object; a tool path also has a 404, for a client whose document
// names a tool this server does not offer.
func answerResponses(toolPath bool) map[string]any {
	r := map[string]any{
		"200": responseRef("Answer"),
		"400": responseRef("BadRequest"),
		"413": responseRef("PayloadTooLarge"),
		"415": responseRef("UnsupportedMediaType"),
		"500": responseRef("InternalError"),
		"503": responseRef("Unavailable"),
	}
	if toolPath {
		r["404"] = responseRef("UnknownTool")
	}
	return r
}

func responses() map[string]any {
	answerOrError := map[string]any{"oneOf": []any{ref("Answer"), ref("Error")}}
	return map[string]any{
		"Answer": jsonResponse("The answer object, whatever the outcome but error: answered, absence, abstained or rejected.", ref("Answer")),
		"BadRequest": jsonResponse("The body is empty, not one well-formed JSON object, or has a duplicated field "+
			"(codes empty_body, invalid_json, not_an_object, duplicate_field; for a question also unknown_field, "+
			"invalid_question, missing_question, empty_question).", ref("Error")),
		"UnknownTool":          jsonResponse("The path names no tool this server offers (code unknown_tool).", ref("Error")),
		"PayloadTooLarge":      jsonResponse("The body exceeds the size limit (code body_too_large).", ref("Error")),
		"UnsupportedMediaType": unsupportedMediaType(),
		"InternalError": jsonResponse("Our failure: the answer object with outcome error and reason internal or "+
			"verification_failed, or an error body (code internal).", answerOrError),
		"Unavailable": jsonResponse("The model is unreachable (the answer object with reason model_unavailable), or the "+
			"dataset is still loading (an error body, code loading, with Retry-After).", answerOrError),
	}
}

// unsupportedMediaType is the 415 of every operation with a request body.
func unsupportedMediaType() map[string]any {
	return jsonResponse("Content-Type is not application/json (code unsupported_media_type), or the body has a "+
		"Content-Encoding other than identity, which the server does not decode (code unsupported_content_encoding, "+
		"with Accept-Encoding: identity).", ref("Error"))
}

func jsonResponse(description string, schema any) map[string]any {
	return map[string]any{
		"description": description,
		"content":     map[string]any{"application/json": map[string]any{"schema": schema}},
	}
}

func ref(schema string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + schema}
}

func responseRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/responses/" + name}
}

func nullable(s map[string]any) map[string]any {
	return map[string]any{"oneOf": []any{map[string]any{"type": "null"}, s}}
}

func strictObject(props map[string]any) map[string]any {
	var req []any
	for _, k := range slices.Sorted(maps.Keys(props)) {
		req = append(req, k)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// freeSQL reports whether reg's menu has the free SQL tool (a tool with a
// Statement parameter).
func freeSQL(reg *tool.Registry) bool {
	for _, d := range reg.Menu() {
		if slices.ContainsFunc(d.Params, func(p tool.Param) bool { return p.Kind == tool.Statement }) {
			return true
		}
	}
	return false
}

// valueSchema is the schema of an answer's value: one alternative per
// value shape the registry's tools return, in the order of fact.Kinds
// (strings, integers, numbers, entity counts and lists by ids field, row
// counts), then null (no observation, or no value).
func valueSchema(reg *tool.Registry, count map[string]any) map[string]any {
	var (
		alts  []any
		parts []string
		seen  = map[string]bool{}
	)
	add := func(key, part string, alt map[string]any) {
		if !seen[key] {
			seen[key] = true
			alts = append(alts, alt)
			parts = append(parts, part)
		}
	}
	menu := reg.Menu()
	for _, k := range fact.Kinds {
		var notes []string
		for _, d := range menu {
			if d.Value != k {
				continue
			}
			note := d.Attribute
			if d.Unit != "" {
				note += " in " + d.Unit
			}
			if note != "" && !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		}
		paren := ""
		if len(notes) > 0 {
			paren = " (" + strings.Join(notes, ", ") + ")"
		}
		for _, d := range menu {
			if d.Value != k {
				continue
			}
			switch k {
			case fact.KindText:
				add("text", "a string"+paren, map[string]any{"type": "string"})
			case fact.KindInteger:
				add("integer", "an integer"+paren, map[string]any{"type": "integer"})
			case fact.KindNumber:
				add("number", "a number"+paren, map[string]any{"type": "number"})
			case fact.KindEntityCount:
				add("count+"+d.IDsField, "{count, "+d.IDsField+"}", strictObject(map[string]any{"count": count, d.IDsField: stringArray()}))
			case fact.KindEntityList:
				add("list+"+d.IDsField, "{"+d.IDsField+"}", strictObject(map[string]any{d.IDsField: stringArray()}))
			case fact.KindRowCount:
				add("count", "{count}", strictObject(map[string]any{"count": count}))
			case fact.KindTable:
				add("table", "{columns, rows} (a metric's table: one row per group, cells in column order)", tableSchema())
			}
		}
	}
	alts = append(alts, map[string]any{"type": "null"})
	parts = append(parts, "or null (no observation, or no value)")
	desc := strings.Join(parts, ", ") + "."
	desc = strings.ToUpper(desc[:1]) + desc[1:]
	return map[string]any{"description": desc, "oneOf": alts}
}

// tableSchema is the schema of a table value (fact.Table): typed columns
// and rows of cells, each a string (text, or an instant), a number or
// null.
func tableSchema() map[string]any {
	column := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name": map[string]any{"type": "string"},
			"type": map[string]any{"enum": []any{string(fact.CellText), string(fact.CellInstant), string(fact.CellNumber)}},
			"unit": map[string]any{"type": "string", "description": "A number column's unit (share, count, seconds, cents, ...)."},
		},
		"required":             []any{"name", "type"},
		"additionalProperties": false,
	}
	cell := map[string]any{"type": []any{"string", "number", "null"}}
	return strictObject(map[string]any{
		"columns": map[string]any{"type": "array", "items": column, "minItems": 1},
		"rows":    map[string]any{"type": "array", "items": map[string]any{"type": "array", "items": cell}},
	})
}

func stringArray() map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
}

// schemas are the component schemas: the answer object (package answer's
// wire form, every key always present), the error body, a tool entry and
// the health body.
func schemas(reg *tool.Registry) map[string]any {
	var menu []any
	for _, d := range reg.Menu() {
		menu = append(menu, d.Name)
	}
	outcomes := []any{string(answer.Answered), string(answer.Absence), string(answer.Abstained), string(answer.Rejected), string(answer.Error)}
	stages := []any{string(answer.StageSelect), string(answer.StageExecute), string(answer.StageResolve), string(answer.StageCompose), nil}
	count := map[string]any{"type": "integer", "minimum": 0}

	value := valueSchema(reg, count)
	eventIDs := stringArray()
	eventIDs["minItems"] = 1
	absence := strictObject(map[string]any{
		"tool":             map[string]any{"type": "string"},
		"filter":           map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		"window":           map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1, "maxItems": 2},
		"dataset_version":  map[string]any{"type": "string"},
		"enumerated_count": count,
	})
	// A governed metric's provenance also names its compiled query.
	query := strictObject(map[string]any{
		"sql_sha256": map[string]any{"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the compiled SQL text (never the text)."},
		"tables":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1, "description": "The tables the compiled query read, sorted."},
	})
	withQuery := func(o map[string]any) map[string]any {
		o["properties"].(map[string]any)["query"] = query
		return o
	}
	provenance := map[string]any{
		"description": "The sorted events behind a value (a large set listed in part: its first ids, the number of them all and their digest, the rows paged by GET /v1/results/{id}/rows), or an absence attestation for a grounded zero; a query_metric answer's also names its compiled query (query); null when nothing was stapled.",
		"oneOf": []any{
			withQuery(strictObject(map[string]any{"event_ids": eventIDs})),
			withQuery(strictObject(map[string]any{"event_ids": eventIDs, "event_count": count, "event_digest": map[string]any{"type": "string", "pattern": "^(lthash16x1024:)?[0-9a-f]{64}$"}})),
			withQuery(strictObject(map[string]any{"absence": absence})),
			map[string]any{"type": "null"},
		},
	}
	verdict := strictObject(map[string]any{
		"provenance_valid": map[string]any{"type": "boolean"},
		"value_matches":    map[string]any{"type": "boolean"},
		"complete":         map[string]any{"type": "boolean"},
	})

	answerSchema := strictObject(map[string]any{
		"outcome":    map[string]any{"type": "string", "enum": outcomes},
		"tool":       map[string]any{"description": "The validated call's tool; null for none, or for an unregistered name, which is never echoed.", "enum": append(menu, nil)},
		"params":     nullable(map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}),
		"value":      value,
		"provenance": provenance,
		"text":       map[string]any{"type": []any{"string", "null"}, "description": "The composed sentence, the only model-written field."},
		"verdict":    nullable(verdict),
		"reason":     map[string]any{"type": []any{"string", "null"}, "description": "For a non-answer, kind: detail."},
		"stage":      map[string]any{"enum": stages},
		"result_ids": stringArray(),
		"confidence": nullable(strictObject(map[string]any{
			"score": map[string]any{"type": "number", "minimum": 0, "description": "Combined score, 0 to 1; calibration thresholds it."},
			"signals": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"verified":  map[string]any{"type": "number", "description": "1: the resolver's verdict passed."},
					"agreement": map[string]any{"type": "number", "description": "The self-consistency vote's largest share, when the question was voted on."},
					"grounding": map[string]any{"type": "number", "description": "1 when the model's sentence passed the numeral check, 0 when it was refused."},
				},
				"required":             []any{"verified"},
				"additionalProperties": false,
			},
		})),
		"grounding": nullable(strictObject(map[string]any{
			"verdict":        map[string]any{"enum": []any{"PASS", "REFUSE"}},
			"numerals_total": map[string]any{"type": "integer", "minimum": 0},
			"unmatched": map[string]any{"type": "array", "items": strictObject(map[string]any{
				"text":  map[string]any{"type": "string"},
				"value": map[string]any{"type": "number"},
				"unit":  map[string]any{"type": "string"},
			})},
			"allowance_hits": strictObject(map[string]any{
				"question_echo":    map[string]any{"type": "integer", "minimum": 0},
				"ordinal":          map[string]any{"type": "integer", "minimum": 0},
				"window_timestamp": map[string]any{"type": "integer", "minimum": 0},
				"identifier":       map[string]any{"type": "integer", "minimum": 0},
			}),
		})),
	})
	answerSchema["description"] = "The one answer object every surface returns (the object `provenant ask --json` prints)."
	if freeSQL(reg) {
		// Free SQL's answers: tagged ungoverned, resting on a statement.
		props := answerSchema["properties"].(map[string]any)
		props["governance"] = map[string]any{"const": string(answer.Ungoverned),
			"description": "Present only on an answer computed by free SQL (query_sql): re-executed, never independently re-derived."}
		provenance["oneOf"] = append(provenance["oneOf"].([]any), strictObject(map[string]any{"statement": strictObject(map[string]any{
			"sql_sha256":              map[string]any{"type": "string", "pattern": "^[0-9a-f]{64}$"},
			"tables":                  stringArray(),
			"rows_processed":          count,
			"re_executed":             map[string]any{"type": "boolean"},
			"independently_rederived": map[string]any{"const": false},
		})}))
	}

	errorSchema := strictObject(map[string]any{
		"error": strictObject(map[string]any{
			"code":    map[string]any{"type": "string"},
			"message": map[string]any{"type": "string", "description": "Fixed text; never repeats the request."},
		}),
	})

	annotations := strictObject(map[string]any{
		"read_only":    map[string]any{"const": true},
		"idempotent":   map[string]any{"const": true},
		"closed_world": map[string]any{"const": true},
		"destructive":  map[string]any{"const": false},
	})
	toolSchema := strictObject(map[string]any{
		"name":         map[string]any{"type": "string"},
		"description":  map[string]any{"type": "string"},
		"input_schema": map[string]any{"type": "object", "description": "The JSON Schema (2020-12) of the tool's arguments."},
		"annotations":  annotations,
	})

	health := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"status":          map[string]any{"enum": []any{"ok", "loading"}},
			"dataset_version": map[string]any{"type": "string"},
			"provider":        map[string]any{"type": "string"},
		},
		"required":             []any{"status"},
		"additionalProperties": false,
	}

	rowsPage := strictObject(map[string]any{
		"result_id":    map[string]any{"type": "string"},
		"page":         map[string]any{"type": "integer", "minimum": 1},
		"pages":        map[string]any{"type": "integer", "minimum": 1},
		"event_count":  count,
		"event_digest": map[string]any{"type": "string", "pattern": "^(lthash16x1024:)?[0-9a-f]{64}$"},
		"data_version": map[string]any{"type": "string"},
		"event_ids":    stringArray(),
	})
	return map[string]any{"Answer": answerSchema, "Error": errorSchema, "Tool": toolSchema, "Health": health, "RowsPage": rowsPage}
}
