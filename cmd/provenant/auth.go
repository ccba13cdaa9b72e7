package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/provenant/provenant/principal"
	"github.com/provenant/provenant/server"
)

// authFlags configure bearer-token authentication for the network
// surfaces.
type authFlags struct {
	principals string
	tokenEnv   string
	tokenFile  string
}

func (f *authFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.principals, "principals", "", "principals `FILE` (YAML): bearer tokens with store scopes")
	fs.StringVar(&f.tokenEnv, "token-env", "", "environment `VAR` holding one bearer token that may see every store")
	fs.StringVar(&f.tokenFile, "token-file", "", "`FILE` holding one bearer token that may see every store")
}

// load returns the principals the flags configure, or nil for the local
// single-user mode, which only a loopback address may serve.
func (f *authFlags) load(ctx context.Context, addr string) (*principal.Set, error) {
	given := 0
	for _, v := range []string{f.principals, f.tokenEnv, f.tokenFile} {
		if v != "" {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, errors.New("configure auth: give one of --principals, --token-env and --token-file")
	case given == 0 && !server.IsLoopback(addr):
		return nil, errors.New("configure auth: a non-loopback address needs bearer tokens (--principals, --token-env or --token-file)")
	case given == 0:
		return nil, nil
	case f.tokenEnv != "" || f.tokenFile != "":
		return principal.Single("token", principal.Source{Env: f.tokenEnv, File: f.tokenFile}, principal.OS())
	}
	file, err := openStream(ctx, f.principals)
	if err != nil {
		return nil, fmt.Errorf("open principals file: %w", err)
	}
	defer file.Close()
	return principal.Parse(file, principal.OS())
}
