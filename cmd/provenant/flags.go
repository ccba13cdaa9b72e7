package main

import (
	"flag"
	"fmt"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
)

// engineFlags are the flags every command that answers questions shares.
type engineFlags struct {
	store    string
	provider string
	logLevel string
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.store, "store", "", "store file `PATH` (default: the embedded demo store)")
	fs.StringVar(&f.provider, "provider", "rules", "model provider: rules")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
}

// buildProvider returns the configured provider.
func (f *engineFlags) buildProvider() (provider.Provider, error) {
	switch f.provider {
	case "rules":
		return rules.Provider{}, nil
	}
	return nil, fmt.Errorf("choose provider: unknown provider (want rules)")
}
