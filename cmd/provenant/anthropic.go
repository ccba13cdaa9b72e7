package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/anthropic"
)

// The model APIs --api names: the wire protocol --provider record and
// replay speak.
const (
	apiOpenAI    = "openai"
	apiAnthropic = "anthropic"
)

// anthropicFlags are the flags of --provider anthropic, and --api, which
// chooses the API that record and replay speak.
type anthropicFlags struct {
	api     string
	baseURL string
	keyEnv  string
}

func (a *anthropicFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.api, "api", apiOpenAI,
		"with --provider record or replay: the model `API` the cassettes hold, openai (chat completions) or anthropic (Messages)")
	fs.StringVar(&a.baseURL, "anthropic-base-url", anthropic.DefaultBaseURL,
		"Anthropic Messages API root `URL`, without /v1, for --provider anthropic and --api anthropic")
	fs.StringVar(&a.keyEnv, "anthropic-api-key-env", "ANTHROPIC_API_KEY",
		"environment `VAR` holding the Anthropic API key, for --provider anthropic and record with --api anthropic (unset or empty is allowed for local servers)")
}

// usesAnthropic reports whether the chosen provider speaks the Messages
// API, checking that --api goes with record or replay.
func (a *anthropicFlags) usesAnthropic(providerName string) (bool, error) {
	switch a.api {
	case apiOpenAI, apiAnthropic:
	default:
		return false, usagef("--api: want %s or %s", apiOpenAI, apiAnthropic)
	}
	if a.api != apiOpenAI && providerName != "record" && providerName != "replay" {
		return false, usagef("--api goes with --provider record or replay")
	}
	return providerName == "anthropic" || a.api == apiAnthropic, nil
}

// build returns the anthropic provider for model over transport (nil for
// the network), reading the API key from the environment unless replaying.
func (a *anthropicFlags) build(providerName, model string, transport http.RoundTripper, logger *slog.Logger) (provider.Provider, error) {
	var key string
	if providerName != "replay" { // replay sends nothing, so it needs no key
		if a.keyEnv == "" {
			return nil, usagef("--anthropic-api-key-env: names no variable")
		}
		key = os.Getenv(a.keyEnv)
	}
	p, err := anthropic.New(anthropic.Options{BaseURL: a.baseURL, Model: model, APIKey: key, Transport: transport, Logger: logger})
	if errors.Is(err, anthropic.ErrOptions) {
		// --anthropic-base-url, --model, or the key --anthropic-api-key-env names.
		return nil, &usageError{msg: fmt.Sprintf("choose provider: %v", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("choose provider: %w", err)
	}
	return p, nil
}
