package httpapi

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Error codes of the host and origin checks.
const (
	CodeForbiddenHost = "forbidden_host" // 403: the Host header names no allowed host
	CodeCrossOrigin   = "cross_origin"   // 403: a browser request from an origin that is not an allowed host
)

// hostPolicy is the one Host and Origin check in front of every route
// but /healthz (DNS rebinding: a page whose name now resolves to
// 127.0.0.1 still sends its own name as Host and Origin).
//
// A host is allowed when it is a loopback name or address (localhost,
// 127.0.0.0/8, ::1), the IP address the request arrived on (an address
// literal cannot be rebound: a page whose origin it is, is this server),
// or one of the configured names, with the port the request arrived on
// or no port; a configured "name:port" matches that port only. "*"
// allows any host (the check is then off).
type hostPolicy struct {
	any   bool
	names map[string]bool // lower case, without port
	exact map[string]bool // lower case "name:port"
}

// ErrAllowedHost is matched by the error of an AllowedHosts entry that is
// not a host name or address with an optional port.
var ErrAllowedHost = errors.New("invalid allowed host")

// ValidateAllowedHosts checks entries as Options.AllowedHosts takes them.
func ValidateAllowedHosts(entries []string) error {
	_, err := newHostPolicy(entries)
	return err
}

func newHostPolicy(entries []string) (*hostPolicy, error) {
	p := &hostPolicy{names: map[string]bool{}, exact: map[string]bool{}}
	for i, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "*" {
			p.any = true
			continue
		}
		name, port, hasPort := splitHost(e)
		if !validHostName(name) || hasPort && !validPort(port) {
			// The entry is named by its position: a rejected value is
			// never repeated.
			return nil, fmt.Errorf("%w: entry %d: want a host name or address, optionally with :port", ErrAllowedHost, i+1)
		}
		if hasPort {
			p.exact[name+":"+port] = true
		} else {
			p.names[name] = true
		}
	}
	return p, nil
}

// allows reports whether host (a Host header, or an Origin's host) is
// allowed for a request that arrived on local.
func (p *hostPolicy) allows(host string, local arrival) bool {
	if p.any {
		return true
	}
	name, port, hasPort := splitHost(strings.ToLower(host))
	if !validHostName(name) || hasPort && !validPort(port) {
		return false
	}
	if hasPort && p.exact[name+":"+port] {
		return true
	}
	if hasPort && port != local.port {
		return false
	}
	if ip := net.ParseIP(name); ip != nil && local.ip != nil && ip.Equal(local.ip) {
		return true
	}
	return isLoopbackName(name) || p.names[name]
}

// splitHost splits "name", "name:port", "[v6]" or "[v6]:port"; an IPv6
// name is returned without brackets.
func splitHost(h string) (name, port string, hasPort bool) {
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", "", false
		}
		name, rest := h[1:end], h[end+1:]
		if rest == "" {
			return name, "", false
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", false
		}
		return name, rest[1:], true
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		return h[:i], h[i+1:], true
	}
	return h, "", false
}

func validPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// validHostName accepts an IP address or a DNS name of letters, digits,
// hyphens and dots.
func validHostName(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	if net.ParseIP(name) != nil {
		return true
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// isLoopbackName: localhost, 127.0.0.0/8 in dotted form, or ::1.
func isLoopbackName(name string) bool {
	if name == "localhost" {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// arrival is the local address a request arrived on; zero when unknown.
type arrival struct {
	ip   net.IP
	port string
}

func arrivalOf(r *http.Request) arrival {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return arrival{}
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return arrival{}
	}
	return arrival{net.ParseIP(host), port}
}

// check answers 403 and returns false when r's Host or Origin is not
// allowed. The reply holds neither.
func (p *hostPolicy) check(w http.ResponseWriter, r *http.Request) bool {
	local := arrivalOf(r)
	if !p.allows(r.Host, local) {
		answerWithoutBody(w, r)
		writeError(w, http.StatusForbidden, CodeForbiddenHost, "the Host header does not name this server")
		return false
	}
	if !p.originAllowed(r, local) {
		answerWithoutBody(w, r)
		writeError(w, http.StatusForbidden, CodeCrossOrigin, "cross-origin requests are not allowed")
		return false
	}
	return true
}

// originAllowed: a request with an Origin must come from an allowed host
// over http or https; one without an Origin but with Sec-Fetch-Site must
// be same-origin or user-initiated ("none"). Requests from non-browser
// clients carry neither and pass.
func (p *hostPolicy) originAllowed(r *http.Request, local arrival) bool {
	if vs := r.Header.Values("Origin"); len(vs) > 0 {
		if len(vs) > 1 {
			return false
		}
		u, err := url.Parse(vs[0])
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" ||
			u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
			return false
		}
		return p.allows(u.Host, local)
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}
