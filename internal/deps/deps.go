//go:build tools

// Package deps pins modules that packages under construction will import,
// so that parallel work does not race on go.mod. Removed once they are
// imported for real.
package deps

import (
	_ "github.com/goccy/go-yaml"
	_ "github.com/gowebpki/jcs"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "pgregory.net/rapid"
)
