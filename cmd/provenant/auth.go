package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

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
		return principal.Single("token", principal.Source{Env: f.tokenEnv, File: f.tokenFile}, tokenSources(ctx))
	}
	file, err := openStream(ctx, f.principals)
	if err != nil {
		return nil, fmt.Errorf("open principals file: %w", err)
	}
	defer file.Close()
	return principal.Parse(file, tokenSources(ctx))
}

// tokenSources are principal.OS but for token files, read as streams an
// interrupt stops (openStream): a --token-file or a token_file: entry
// that is a named pipe no one writes would otherwise block serve in
// open(2), deaf to the interrupt.
func tokenSources(ctx context.Context) principal.Sources {
	src := principal.OS()
	src.ReadFile = func(path string) ([]byte, error) {
		r, err := openStream(ctx, path)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return io.ReadAll(r)
	}
	return src
}
