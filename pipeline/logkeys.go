package pipeline

// Log attribute keys of the one line written per request.
const (
	KeyOutcome             = "outcome"
	KeyTool                = "tool"
	KeyValidation          = "validation"
	KeyProvenance          = "provenance"
	KeyGrounding           = "grounding"
	KeyErrorKind           = "error_kind"
	KeyErrorDetail         = "error_detail"
	KeyStage               = "stage"
	KeyDeterministicMicros = "deterministic_us"
	KeyQuestionBytes       = "question_bytes"
)
