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
	// Self-consistency (see Record): the proposals drawn (0: no vote), the
	// largest cluster's share of them, and the cluster sizes, largest
	// first.
	KeySCSamples   = "sc_samples"
	KeySCAgreement = "sc_agreement"
	KeySCClusters  = "sc_clusters"
	// KeyFailureClass is a free SQL statement's failure class, written
	// only when there is one (Record.FailureClass).
	KeyFailureClass = "failure_class"
	// KeyRepairAttempts are the failure classes of the repair loop's
	// attempts, written only when there were some (Record.RepairAttempts).
	KeyRepairAttempts = "repair_attempts"
	// KeyRepairSamples are, under a self-consistency vote, the sample
	// each repair attempt belongs to, in the order of KeyRepairAttempts
	// (Record.RepairSamples); written only when there were some.
	KeyRepairSamples = "repair_samples"
)
