package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/provenant/provenant/grounding"
)

// handleGround serves POST /v1/ground: the numeral checker on a client's
// {"text", "ledger", "question"?, "policy"?}, answering the grounding
// report. It reads no data, so it needs no loaded engine.
func (s *Server) handleGround(w http.ResponseWriter, r *http.Request) {
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	args, status, code, msg := decodeArgs(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if code != "" {
		writeError(w, status, code, msg)
		return
	}
	var req grounding.Request
	for k, v := range args {
		switch k {
		case "text", "question", "policy":
			str, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, CodeInvalidGround, `"text", "question" and "policy" must be strings`)
				return
			}
			switch k {
			case "text":
				req.Text = str
			case "question":
				req.Question = str
			default:
				req.Policy = str
			}
		case "ledger":
			b, err := json.Marshal(v)
			if err != nil {
				writeError(w, http.StatusBadRequest, CodeInvalidGround, `"ledger" must be a ledger object`)
				return
			}
			req.Ledger = b
		default:
			writeError(w, http.StatusBadRequest, CodeUnknownField, `the fields are "text", "ledger", "question" and "policy"`)
			return
		}
	}
	if req.Text == "" {
		writeError(w, http.StatusBadRequest, CodeInvalidGround, `"text" is required`)
		return
	}
	rep, err := req.Run()
	if err != nil {
		msg := "the request is not a valid grounding request"
		if errors.Is(err, grounding.ErrRequest) {
			msg = err.Error() // names the field at fault, never its value
		}
		writeError(w, http.StatusBadRequest, CodeInvalidGround, msg)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// CodeInvalidGround is the error code of a malformed grounding request.
const CodeInvalidGround = "invalid_ground_request"
