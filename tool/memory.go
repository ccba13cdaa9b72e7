package tool

// The memory tools: an agent's journal (package memory), offered beside
// the closed menu on every surface with these names, descriptions and
// input schemas (package memory/memapi holds the request types the
// schemas describe). The writing agent and the reader are the caller's
// authenticated identity, never a field.
const (
	RememberName = "remember"
	AnnotateName = "annotate"
	RecallName   = "recall"
)

// Descriptions of the memory tools.
const (
	RememberDescription = "Remember a claim, an observation or a note in your memory journal (append-only). " +
		"Give the provenance of a claim that came from an answer (its tool_call, value, row_keys, data_version), so that recall can check it against the data later. Returns the record's key."
	AnnotateDescription = "Annotate a remembered record by its key: confirm it, retract it (it is never shown again), or supersede it with corrected text. Returns the annotation's key."
	RecallDescription   = "Recall what you should currently believe about a subject, tags or words: retracted records dropped, corrections collapsed onto their winners, contradictions shown, only what you may read. " +
		"Each claim carrying provenance is checked against the data now: current, outdated (with the newer events and the current value) or unverifiable."
)

// memory schema bounds, as package memory's limits.
const (
	memoryIDLen   = 128
	memoryTextLen = 4096
	memoryTags    = 32
)

func memoryID() map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "maxLength": memoryIDLen, "pattern": `^[^\s]+$`}
}

func memoryIDs(max int, description string) map[string]any {
	return map[string]any{"type": "array", "items": memoryID(), "maxItems": max, "uniqueItems": true, "description": description}
}

func memoryText(description string) map[string]any {
	return map[string]any{"type": "string", "maxLength": memoryTextLen, "description": description}
}

func relevanceSchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "How relevant the record is, and how fast that decays: score·2^(−age/half_life) in logical ticks (seconds).",
		"properties": map[string]any{
			"score":     map[string]any{"type": "number", "minimum": 0, "maximum": 1},
			"half_life": map[string]any{"type": "integer", "minimum": 0},
		},
		"required":             []any{"score"},
		"additionalProperties": false,
	}
}

func provenanceSchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "Where a claim came from: the answer's result_ids, the tool call (tool and arguments), the answer's value, its event ids (row_keys) and data_version.",
		"properties": map[string]any{
			"result_ids": memoryIDs(1000, "The result ids the answer carried."),
			"tool_call": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"tool":      memoryID(),
					"arguments": map[string]any{"type": "object", "description": "The call's arguments, as the answer's call carried them."},
				},
				"required":             []any{"tool"},
				"additionalProperties": false,
			},
			"row_keys":     memoryIDs(1000, "The event ids the answer rested on."),
			"data_version": memoryID(),
			"value":        map[string]any{"description": "The answer's value, as it returned it."},
		},
		"additionalProperties": false,
	}
}

func visibilitySchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "Who may read the record (default: every reader).",
		"properties": map[string]any{
			"private":  map[string]any{"type": "boolean", "description": "Only you may read it."},
			"tags":     memoryIDs(memoryTags, "Tags a reader must hold."),
			"purposes": memoryIDs(memoryTags, "Purposes it may be read for."),
		},
		"additionalProperties": false,
	}
}

// RememberSchema is the remember tool's input schema (memapi.RememberRequest).
func RememberSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"key":        memoryID(),
			"kind":       map[string]any{"enum": []any{"claim", "observation", "note"}, "description": "Default claim."},
			"text":       map[string]any{"type": "string", "minLength": 1, "maxLength": memoryTextLen, "description": "What you believe, saw or noted."},
			"subject":    memoryText("What it is about (recall matches it case-insensitively), e.g. pr-007@st-003."),
			"tags":       memoryIDs(memoryTags, "Tags recall can match."),
			"class":      memoryID(),
			"relevance":  relevanceSchema(),
			"provenance": provenanceSchema(),
			"visibility": visibilitySchema(),
		},
		"required":             []any{"text"},
		"additionalProperties": false,
	}
}

// AnnotateSchema is the annotate tool's input schema (memapi.AnnotateRequest).
func AnnotateSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"key":        memoryID(),
			"kind":       map[string]any{"enum": []any{"confirm", "retract", "supersede"}},
			"target":     memoryID(),
			"text":       memoryText("For supersede: the corrected text that stands in the target's place."),
			"subject":    memoryText("For supersede: its subject."),
			"tags":       memoryIDs(memoryTags, "For supersede: its tags."),
			"stated":     map[string]any{"type": "boolean", "description": "You assert this correction outright."},
			"relevance":  relevanceSchema(),
			"provenance": provenanceSchema(),
			"visibility": visibilitySchema(),
		},
		"required":             []any{"kind", "target"},
		"additionalProperties": false,
	}
}

// RecallSchema is the recall tool's input schema (memapi.RecallRequest).
func RecallSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"subject":   memoryText("The subject (case-insensitive)."),
			"tags":      memoryIDs(memoryTags, "Records sharing at least one of these tags."),
			"text":      memoryText("Words every record must contain."),
			"partition": memoryIDs(memoryTags, "Only records written by these agents."),
			"exclude":   memoryIDs(1000, "Keys to leave out (already in your context)."),
			"as_of":     map[string]any{"type": "integer", "minimum": 0, "description": "Logical time (Unix seconds) to read at; default now."},
			"max_items": map[string]any{"type": "integer", "minimum": 1, "maximum": 200, "description": "The most claims; default 10."},
			"policy": map[string]any{
				"type":        "object",
				"description": "prefer (self-stated, confirmed, recent), staleness_threshold, gate_overfetch_multiplier, max_backfill_pulls.",
			},
		},
		"additionalProperties": false,
	}
}
