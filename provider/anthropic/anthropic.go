// Package anthropic is the provider for Anthropic's Messages API with tool
// use, built on the vendor's Go SDK (github.com/anthropics/anthropic-sdk-go/v2).
//
// Select offers the closed menu as custom tools whose input schemas come
// from tool.InputSchema, in strict mode ("strict": true, the Messages
// API's strict tool use, which constrains the model's tool name and input
// to the schema; the schemas keep within its subset: every property
// required, additionalProperties false, strings with a pattern or an
// enum), with tool_choice "auto" and parallel tool use disabled: the model
// calls one tool, or calls none to abstain. Compose sends the question,
// the call and the value (never the provenance) and asks for one
// sentence.
//
// Everything the server returns is untrusted. The proposal is handed to
// the wall as the model wrote it:
//   - the first tool_use block is used; any further ones are ignored (the
//     pipeline runs exactly one tool per question);
//   - an input that is not a JSON object becomes an empty parameter map,
//     so the wall rejects the call as invalid (missing parameters) instead
//     of it turning into an abstention or an error;
//   - a tool name off the menu is passed through, so the wall reports it
//     as unregistered.
//
// A server may not honour strict mode (a proxy, an older model, a
// compatible server), so a proposal is still checked against its tool's
// schema (package provider/internal/toolcall): one that fails is retried
// once, the refused tool_use block sent back with a tool_result that
// gives the schema error (is_error true), and the retry logged as a
// warning on Options.Logger. The retry's proposal, valid or not, goes to
// the wall, which rejects it as it would have without the retry. There is
// never a second retry.
//
// Repair (provider.Repairer) is one follow-up turn after a proposal failed
// verification: the question, the failed call as the assistant's
// tool_use, and the pipeline's repair message as its tool_result (see
// repair.go).
//
// Any failure to get a usable reply (connection refused, timeout, a non-2xx
// status, an unparsable body, an empty sentence, a cassette miss, on the
// first request or on the retry) wraps provider.ErrUnavailable together
// with the cause. The client never retries a failed request: a retry would
// hide unavailability and make a replayed run differ from the recorded
// one.
//
// All HTTP goes through Options.Transport, the seam where
// provider/cassette records and replays model calls. The request body is a
// function of the model, the prompts below, the menu and the question only
// (and, for a retry, the refused call and its schema error), so it keys a
// cassette deterministically. This version of the Messages API takes no
// sampling temperature: the model's default applies. Changing a prompt or
// a tool schema changes every key: re-record the cassettes.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/internal/reply"
	"github.com/provenant/provenant/provider/internal/toolcall"
	"github.com/provenant/provenant/tool"
)

// Defaults and limits.
const (
	DefaultBaseURL  = "https://api.anthropic.com" // the API root, without /v1
	DefaultTimeout  = 60 * time.Second            // per model call, when Options.Timeout is 0
	MaxResponseSize = 4 << 20                     // bytes of one response body
	MaxSentence     = 2000                        // bytes of a composed sentence
	// MaxTokens is the max_tokens of every request: ample for one tool
	// call or one sentence.
	MaxTokens = 1024
)

var (
	// ErrOptions is wrapped by New for unusable options.
	ErrOptions = errors.New("invalid anthropic options")
)

// Options configures a Provider.
type Options struct {
	// BaseURL is the API root without /v1, e.g. https://api.anthropic.com
	// (DefaultBaseURL) or a local server's http://127.0.0.1:PORT.
	// Required; http or https.
	BaseURL string
	// Model is the model name sent with every request. Required.
	Model string
	// APIKey is the credential sent with every request when non-empty.
	// The caller reads it from the environment; a local server may need
	// none.
	APIKey string
	// Transport carries every request; nil means http.DefaultTransport.
	// Set it to a cassette.Recorder or cassette.Replayer to record or
	// replay.
	Transport http.RoundTripper
	// Timeout bounds one model call; 0 means DefaultTimeout.
	Timeout time.Duration
	// Logger receives one warning per retried proposal; nil discards.
	Logger *slog.Logger
}

// Provider is the Anthropic Messages API provider. It is safe for
// concurrent use.
type Provider struct {
	model    string
	messages sdk.MessageService
	logger   *slog.Logger
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
	// The service is built without anthropic.NewClient, which would read
	// ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN,
	// ANTHROPIC_CUSTOM_HEADERS, profiles and the like from the
	// environment: this provider is configured by Options only.
	ro := []option.RequestOption{
		option.WithBaseURL(opts.BaseURL),
		option.WithHTTPClient(client),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(timeout),
	}
	if opts.APIKey != "" {
		ro = append(ro, option.WithAPIKey(opts.APIKey))
	}
	return &Provider{model: opts.Model, messages: sdk.NewMessageService(ro...), logger: toolcall.Logger(opts.Logger)}, nil
}

// Name returns "anthropic:" and the model name.
func (p *Provider) Name() string { return "anthropic:" + p.model }

// Select asks the model to call one tool from menu, or none. An empty menu
// abstains without a call. A proposal that fails its tool's schema is
// retried once, with the error given back to the model as the tool's
// result; whatever the retry proposes goes to the wall as it is.
func (p *Provider) Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error) {
	if len(menu) == 0 {
		return nil, nil
	}
	tools := menuTools(menu)
	messages := []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(question))}
	use, err := p.selectCall(ctx, "select tool", messages, tools)
	if err != nil || use == nil {
		return nil, err
	}
	prop := proposal(use.Name, use.Input)
	var serr *toolcall.SchemaError
	if !errors.As(toolcall.Check(menu, *prop), &serr) {
		return prop, nil
	}
	toolcall.LogRetry(p.logger, p.Name(), serr)
	// The refused call goes back as the model wrote it (an input that is
	// not a JSON object, which the API would refuse in a request, as {}),
	// with the error as its tool result.
	input := json.RawMessage("{}")
	if isObject(use.Input) {
		input = use.Input
	}
	messages = append(messages,
		sdk.NewAssistantMessage(sdk.NewToolUseBlock(use.ID, input, use.Name)),
		sdk.NewUserMessage(sdk.NewToolResultBlock(use.ID, toolcall.RetryPrompt(serr), true)),
	)
	use, err = p.selectCall(ctx, "retry tool", messages, tools)
	if err != nil || use == nil {
		return nil, err
	}
	return proposal(use.Name, use.Input), nil
}

// menuTools offers the menu as tools, strict where the schema allows.
func menuTools(menu []tool.Def) []sdk.ToolUnionParam {
	tools := make([]sdk.ToolUnionParam, 0, len(menu))
	for _, d := range menu {
		schema, strict := toolcall.Schema(d)
		t := &sdk.ToolParam{
			Name:        d.Name,
			Description: sdk.String(d.Description),
			InputSchema: inputSchema(schema),
		}
		if strict {
			t.Strict = sdk.Bool(true)
		}
		tools = append(tools, sdk.ToolUnionParam{OfTool: t})
	}
	return tools
}

// inputSchema is a tool's input schema in the SDK's shape: the properties
// and the required list in their fields, every other key (here
// additionalProperties) kept as it is.
func inputSchema(schema map[string]any) sdk.ToolInputSchemaParam {
	s := sdk.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	if r, ok := schema["required"].([]string); ok {
		s.Required = r
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
		default:
			s.ExtraFields[k] = v
		}
	}
	return s
}

// selectCall sends one selection request and returns the first tool_use
// block of the reply, or nil when the model used no tool.
func (p *Provider) selectCall(ctx context.Context, stage string, messages []sdk.MessageParam, tools []sdk.ToolUnionParam) (*sdk.ContentBlockUnion, error) {
	m, err := p.messages.New(ctx, sdk.MessageNewParams{
		Model:      p.model,
		MaxTokens:  MaxTokens,
		System:     []sdk.TextBlockParam{{Text: toolcall.SelectPrompt}},
		Messages:   messages,
		Tools:      tools,
		ToolChoice: sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{DisableParallelToolUse: sdk.Bool(true)}},
	})
	if err != nil {
		return nil, unavailable(stage, err)
	}
	if m == nil || !m.JSON.Content.Valid() { // a "null" body, or no content array
		return nil, unavailable(stage, errors.New("response has no content"))
	}
	provider.Report(ctx, provider.Usage{Model: p.model, Input: m.Usage.InputTokens, Output: m.Usage.OutputTokens})
	for i := range m.Content {
		if m.Content[i].Type == "tool_use" {
			return &m.Content[i], nil
		}
	}
	return nil, nil
}

// proposal turns a tool_use block as the model wrote it into a Proposal,
// its input read by toolcall.Args (the one strict decoder): an input that
// is not one strict JSON object gives an empty, non-nil map, which the
// wall rejects.
func proposal(name string, input json.RawMessage) *tool.Proposal {
	return &tool.Proposal{Tool: name, Params: toolcall.Args(input)}
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// Compose asks the model for one sentence stating the value. The reply's
// text blocks are joined and reduced to one line of printable text; an
// empty or oversized reply is an error wrapping provider.ErrUnavailable.
func (p *Provider) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	msg, err := toolcall.ComposeMessage(in)
	if err != nil {
		return "", err
	}
	m, err := p.messages.New(ctx, sdk.MessageNewParams{
		Model:     p.model,
		MaxTokens: MaxTokens,
		System:    []sdk.TextBlockParam{{Text: toolcall.ComposePrompt}},
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(msg))},
	})
	if err != nil {
		return "", unavailable("compose sentence", err)
	}
	if m == nil || !m.JSON.Content.Valid() { // a "null" body, or no content array
		return "", unavailable("compose sentence", errors.New("response has no content"))
	}
	provider.Report(ctx, provider.Usage{Model: p.model, Input: m.Usage.InputTokens, Output: m.Usage.OutputTokens})
	var text []string
	for _, b := range m.Content {
		if b.Type == "text" {
			text = append(text, b.Text)
		}
	}
	s := reply.OneLine(strings.Join(text, " "))
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
