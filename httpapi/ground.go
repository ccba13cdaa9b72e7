package httpapi

import (
	"net/http"

	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/internal/strictjson"
)

// handleGround serves POST /v1/ground: the numeral checker on a client's
// {"text", "ledger", "question"?, "policy"?}, answering the grounding
// report. It reads no data, so it needs no loaded engine.
func (s *Server) handleGround(w http.ResponseWriter, r *http.Request) {
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	var req grounding.Request
	if status, code, msg, _ := decodeJSON(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), &req, nil); code != "" {
		if code == CodeWrongType {
			code = CodeInvalidGround
		}
		writeError(w, status, code, msg)
		return
	}
	if req.Text == "" {
		writeError(w, http.StatusBadRequest, CodeInvalidGround, `"text" is required`)
		return
	}
	rep, err := req.Run()
	if err != nil {
		// A grounding error names the field at fault, never a value or a
		// key the client chose; anything else gets fixed text.
		writeError(w, http.StatusBadRequest, CodeInvalidGround, strictjson.Message(err, "the request is not a valid grounding request"))
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// CodeInvalidGround is the error code of a malformed grounding request.
const CodeInvalidGround = "invalid_ground_request"
