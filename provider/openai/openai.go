// Package openai is the provider for any OpenAI-compatible chat-completions
// endpoint with tool calling (Ollama, llama.cpp server, vLLM, OpenAI),
// built on the vendor's Go SDK (github.com/openai/openai-go/v3).
//
// Select offers the closed menu as function tools whose parameter schemas
// come from tool.InputSchema, in strict mode ("strict": true, which the
// schemas satisfy: every property required, additionalProperties false,
// strings with a pattern or an enum), with tool_choice "auto": the model
// calls one tool, or calls none to abstain. Compose sends the question,
// the call and the value (never the provenance) and asks for one sentence.
//
// A server may ignore strict mode, so a proposal is still checked against
// its tool's schema: one that fails is retried once, with the schema
// error given back to the model as the tool's reply (logged as a warning
// on Options.Logger). The retry's proposal, valid or not, goes to the
// wall, which rejects it as it would have without the retry. There is
// never a second retry.
//
// Repair (provider.Repairer) is one follow-up turn after a proposal failed
// verification: the selection conversation, the failed call as the
// assistant's, and the pipeline's repair message as that call's tool
// reply (see repair.go).
//
// Everything the server returns is untrusted. The proposal is handed to
// the wall as the model wrote it:
//   - the first tool call is used; any further calls are ignored (the
//     pipeline runs exactly one tool per question);
//   - arguments that are not a JSON object become an empty parameter map,
//     so the wall rejects the call as invalid (missing parameters) instead
//     of it turning into an abstention or an error;
//   - a tool name off the menu is passed through, so the wall reports it
//     as unregistered.
//
// Any failure to get a usable reply (connection refused, timeout, a non-2xx
// status, an unparsable body, no choices, an empty sentence, a cassette
// miss, on the first request or on the retry) wraps provider.ErrUnavailable
// together with the cause. The client never retries a failed request: a
// retry would hide unavailability and make a replayed run differ from the
// recorded one.
//
// All HTTP goes through Options.Transport, the seam where
// provider/cassette records and replays model calls. The request body is a
// function of the model, the temperature, the prompts below, the menu and
// the question only (and, for a retry, the refused call and its schema
// error), so it keys a cassette deterministically. Changing a
// prompt or a tool schema changes every key: re-record the cassettes.
package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/internal/reply"
	"github.com/provenant/provenant/provider/internal/toolcall"
	"github.com/provenant/provenant/tool"
)

// Defaults and limits.
const (
	DefaultTimeout  = 60 * time.Second // per model call, when Options.Timeout is 0
	MaxResponseSize = 4 << 20          // bytes of one response body
	MaxSentence     = 2000             // bytes of a composed sentence
)

var (
	// ErrOptions is wrapped by New for unusable options.
	ErrOptions = errors.New("invalid openai options")
)

// Options configures a Provider.
type Options struct {
	// BaseURL is the API root, e.g. http://localhost:11434/v1 (Ollama) or
	// https://api.openai.com/v1. Required; http or https.
	BaseURL string
	// Model is the model name sent with every request. Required.
	Model string
	// APIKey is sent as a bearer token when non-empty. The caller reads it
	// from the environment; local servers usually need none.
	APIKey string
	// Transport carries every request; nil means http.DefaultTransport.
	// Set it to a cassette.Recorder or cassette.Replayer to record or
	// replay.
	Transport http.RoundTripper
	// Timeout bounds one model call; 0 means DefaultTimeout.
	Timeout time.Duration
	// Temperature is the sampling temperature, 0 (the default) for the
	// most repeatable output. Range [0, 2].
	Temperature float64
	// Logger receives one warning per retried proposal; nil discards.
	Logger *slog.Logger
}

// Provider is the OpenAI-compatible provider. It is safe for concurrent use.
type Provider struct {
	model       string
	temperature float64
	chat        oai.ChatCompletionService
	logger      *slog.Logger
}

var _ provider.Provider = (*Provider)(nil)

// New validates opts and returns a provider. It makes no request.
func New(opts Options) (*Provider, error) {
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("check options: %w: base URL must be an absolute http or https URL without credentials", ErrOptions)
	}
	if strings.TrimSpace(opts.Model) == "" || strings.ContainsFunc(opts.Model, unicode.IsControl) {
		return nil, fmt.Errorf("check options: %w: model name is empty or has control characters", ErrOptions)
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("check options: %w: timeout is negative", ErrOptions)
	}
	if math.IsNaN(opts.Temperature) || opts.Temperature < 0 || opts.Temperature > 2 {
		return nil, fmt.Errorf("check options: %w: temperature must be in [0, 2]", ErrOptions)
	}
	if strings.ContainsFunc(opts.APIKey, unicode.IsControl) {
		return nil, fmt.Errorf("check options: %w: API key has control characters", ErrOptions)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	next := opts.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	client := &http.Client{Transport: reply.LimitTransport(next, MaxResponseSize), Timeout: timeout}
	// The service is built without openai.NewClient, which would read
	// OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_CUSTOM_HEADERS and the like
	// from the environment: this provider is configured by Options only.
	chat := oai.NewChatCompletionService(
		option.WithBaseURL(opts.BaseURL),
		option.WithHTTPClient(client),
		option.WithAPIKey(opts.APIKey),
		option.WithMaxRetries(0),
	)
	return &Provider{model: opts.Model, temperature: opts.Temperature, chat: chat, logger: toolcall.Logger(opts.Logger)}, nil
}

// Name returns "openai:" and the model name.
func (p *Provider) Name() string { return "openai:" + p.model }

// Select asks the model to call one tool from menu, or none. An empty menu
// abstains without a call. A proposal that fails its tool's schema
// (package provider/internal/toolcall) is retried once, with the error
// given back to the model as the tool's reply; whatever the retry
// proposes goes to the wall as it is.
func (p *Provider) Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error) {
	if len(menu) == 0 {
		return nil, nil
	}
	tools := functionTools(menu)
	messages := []oai.ChatCompletionMessageParamUnion{
		oai.SystemMessage(toolcall.SelectPrompt),
		oai.UserMessage(question),
	}
	call, err := p.selectCall(ctx, "select tool", messages, tools)
	if err != nil || call == nil {
		return nil, err
	}
	prop := proposal(call.Function.Name, call.Function.Arguments)
	var serr *toolcall.SchemaError
	if !errors.As(toolcall.Check(menu, *prop), &serr) {
		return prop, nil
	}
	toolcall.LogRetry(p.logger, p.Name(), serr)
	// The refused call goes back as the model wrote it, with the error as
	// its tool's reply: the conversation a chat-completions model expects.
	refused := oai.ChatCompletionAssistantMessageParam{ToolCalls: []oai.ChatCompletionMessageToolCallUnionParam{{
		OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
			ID: call.ID,
			Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
				Name: call.Function.Name, Arguments: call.Function.Arguments,
			},
		},
	}}}
	messages = append(messages,
		oai.ChatCompletionMessageParamUnion{OfAssistant: &refused},
		oai.ToolMessage(toolcall.RetryPrompt(serr), call.ID),
	)
	call, err = p.selectCall(ctx, "retry tool", messages, tools)
	if err != nil || call == nil {
		return nil, err
	}
	return proposal(call.Function.Name, call.Function.Arguments), nil
}

// functionTools offers the menu as function tools, strict where the
// schema allows.
func functionTools(menu []tool.Def) []oai.ChatCompletionToolUnionParam {
	tools := make([]oai.ChatCompletionToolUnionParam, 0, len(menu))
	for _, d := range menu {
		schema, strict := toolcall.Schema(d)
		fn := shared.FunctionDefinitionParam{
			Name:        d.Name,
			Description: oai.String(d.Description),
			Parameters:  shared.FunctionParameters(schema),
		}
		if strict {
			fn.Strict = oai.Bool(true)
		}
		tools = append(tools, oai.ChatCompletionFunctionTool(fn))
	}
	return tools
}

// selectCall sends one selection request and returns the first tool call
// of the reply, or nil when the model called none. Any further calls are
// ignored (the pipeline runs exactly one tool per question).
func (p *Provider) selectCall(ctx context.Context, stage string, messages []oai.ChatCompletionMessageParamUnion,
	tools []oai.ChatCompletionToolUnionParam) (*oai.ChatCompletionMessageToolCallUnion, error) {
	c, err := p.chat.New(ctx, oai.ChatCompletionNewParams{
		Model:       p.model,
		Temperature: oai.Float(p.temperature),
		Messages:    messages,
		Tools:       tools,
		ToolChoice:  oai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: oai.String("auto")},
	})
	if err != nil {
		return nil, unavailable(stage, err)
	}
	if c == nil || len(c.Choices) == 0 { // a "null" body decodes to nil
		return nil, unavailable(stage, errors.New("response has no choices"))
	}
	provider.Report(ctx, provider.Usage{Model: p.model, Input: c.Usage.PromptTokens, Output: c.Usage.CompletionTokens})
	calls := c.Choices[0].Message.ToolCalls
	if len(calls) == 0 {
		return nil, nil
	}
	return &calls[0], nil
}

// proposal turns a tool call as the model wrote it into a Proposal, its
// arguments read by toolcall.Args (the one strict decoder): arguments
// that are not one strict JSON object give an empty, non-nil map, which
// the wall rejects.
func proposal(name, args string) *tool.Proposal {
	return &tool.Proposal{Tool: name, Params: toolcall.Args([]byte(args))}
}

// Compose asks the model for one sentence stating the value. The reply is
// reduced to one line of printable text; an empty or oversized reply is an
// error wrapping provider.ErrUnavailable.
func (p *Provider) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	msg, err := toolcall.ComposeMessage(in)
	if err != nil {
		return "", err
	}
	c, err := p.chat.New(ctx, oai.ChatCompletionNewParams{
		Model:       p.model,
		Temperature: oai.Float(p.temperature),
		Messages: []oai.ChatCompletionMessageParamUnion{
			oai.SystemMessage(toolcall.ComposePrompt),
			oai.UserMessage(msg),
		},
	})
	if err != nil {
		return "", unavailable("compose sentence", err)
	}
	if c == nil || len(c.Choices) == 0 { // a "null" body decodes to nil
		return "", unavailable("compose sentence", errors.New("response has no choices"))
	}
	provider.Report(ctx, provider.Usage{Model: p.model, Input: c.Usage.PromptTokens, Output: c.Usage.CompletionTokens})
	s := reply.OneLine(c.Choices[0].Message.Content)
	switch {
	case s == "":
		return "", unavailable("compose sentence", errors.New("response has no text"))
	case len(s) > MaxSentence:
		return "", unavailable("compose sentence", fmt.Errorf("sentence exceeds %d bytes", MaxSentence))
	}
	return s, nil
}

// unavailable wraps err as an unreachable model at a stage.
func unavailable(stage string, err error) error {
	return fmt.Errorf("%s: %w: %w", stage, provider.ErrUnavailable, err)
}
